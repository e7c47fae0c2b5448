//! How requests travel and fail: ddb shares the caller's client and its
//! connections and keeps the caller's interceptors; the SDK retries what may
//! succeed again; and errors say how a request failed (before it left, at the
//! service, or with its answer lost), whether to send it again, and whether a
//! write may have been applied.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use ddb_examples::single_table::{Customer, Ecommerce, Order};
use ddb_examples::{CustomerId, OrderId};
use ddb_runtime::{Created, Db, Entity, Error, Table};
use ddb_tests::proxy::Fault;

use crate::fixtures::{ada, count_items, customer, line, open_order};

#[tokio::test]
async fn throttling_and_server_errors_are_retried_by_the_sdk_and_validation_is_not() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    proxy.fail("PutItem", 1, Fault::Error(400, "ThrottlingException"));
    proxy.fail("PutItem", 1, Fault::Error(500, "InternalServerError"));
    assert_eq!(
        through.create(&customer("1")).send().await.unwrap(),
        Created::Created
    );
    assert_eq!(proxy.seen("PutItem"), 3);

    proxy.fail("PutItem", 1, Fault::Error(400, "ValidationException"));
    let error = through.create(&customer("2")).send().await.unwrap_err();
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    assert_eq!(
        error.sdk_error().and_then(|e| e.code()),
        Some("ValidationException")
    );
    assert_eq!(
        proxy.seen("PutItem"),
        4,
        "a validation error is not retried"
    );
}

/// Errors keep the SDK's distinction between an error DynamoDB
/// answered and a request whose answer was lost, and say whether sending
/// again may succeed.
#[tokio::test]
async fn errors_say_how_a_request_failed_and_whether_to_retry() {
    use ddb_runtime::SdkErrorKind;
    use ddb_tests::proxy::Fault;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = Customer::key(&ada().customer_id).unwrap();

    // Throttled on every attempt the SDK makes: DynamoDB answered, retry later.
    proxy.fail("GetItem", 4, Fault::Error(400, "ThrottlingException"));
    let throttled = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            throttled,
            Error::Sdk {
                kind: SdkErrorKind::Service,
                ..
            }
        ),
        "{throttled:?}"
    );
    assert!(throttled.is_retryable() && !throttled.is_invalid_input());

    // A validation error: DynamoDB answered, and the same request fails again.
    proxy.fail("GetItem", 1, Fault::Error(400, "ValidationException"));
    let invalid = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            invalid,
            Error::Sdk {
                kind: SdkErrorKind::Service,
                ..
            }
        ),
        "{invalid:?}"
    );
    assert!(!invalid.is_retryable());

    // Every answer lost: the request may have been applied; sending again may work.
    proxy.fail("GetItem", 4, Fault::DropResponse);
    let lost = through.get(key.clone()).send().await.unwrap_err();
    assert!(
        matches!(
            lost,
            Error::Sdk {
                kind: SdkErrorKind::Response | SdkErrorKind::Dispatch | SdkErrorKind::Timeout,
                ..
            }
        ),
        "{lost:?}"
    );
    assert!(lost.is_retryable());

    // Input ddb refuses is not retryable and says so.
    let refused = through
        .update(key)
        .add(Customer::fields().order_count, 1u32)
        .set(Customer::fields().order_count, 2u32)
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::InvalidUpdate { .. }),
        "{refused:?}"
    );
    assert!(refused.is_invalid_input() && !refused.is_retryable());
}

/// A failed request's error displays DynamoDB's error code and message,
/// not only the SDK's "unhandled error": here a query of an index the
/// table lacks.
#[tokio::test]
async fn a_service_error_displays_its_code_and_message() {
    ddb_tests::requires!(ValidationOfIndexNames);
    let client = ddb_tests::client();
    let without_indexes = ddb_runtime::model::TableDef {
        indexes: &[],
        ..Ecommerce::DEF
    };
    let name = ddb_tests::create_table(&client, &without_indexes).await;
    let db = Db::new(client).with_table_name::<Ecommerce>(name);
    let error = db
        .query(Order::by_order_id(&OrderId("A102".into())))
        .send()
        .await
        .unwrap_err();
    let sdk = error.sdk_error().expect("the service refused the query");
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let (code, message) = (sdk.code().unwrap(), sdk.message().unwrap());
    assert_eq!(code, "ValidationException");
    let shown = error.to_string();
    assert!(
        shown.contains(&format!("{code}: {message}")),
        "the display carries the code and message: {shown}"
    );
}

/// ddb sends through the caller's client itself: every request of a handle,
/// however many it sends, and the caller's own, goes over the one keep-alive
/// connection.
#[tokio::test]
async fn ddb_shares_the_callers_connections() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    for i in 0..30 {
        let created = through.create(&open_order(&format!("S{i:02}"))).send();
        assert_eq!(created.await.unwrap(), Created::Created);
    }
    let key = Order::key(
        &CustomerId("123".into()),
        &open_order("S00").placed_at,
        &OrderId("S00".into()),
    )
    .unwrap();
    assert!(through.get(key.clone()).send().await.unwrap().is_some());
    let raw = through
        .client()
        .get_item()
        .table_name(db.table_name::<Ecommerce>());
    let raw = raw.set_key(Some(key.to_item())).send().await.unwrap();
    assert!(raw.item.is_some());
    assert_eq!(proxy.seen("PutItem"), 30);
    assert_eq!(
        proxy.connections(),
        1,
        "one connection for ddb and its caller"
    );
}

/// Sends 20 creates through `through`, so that a handle's later requests
/// are tried as well as its first, and returns the key of the first order
/// created.
async fn after_many_requests(through: &Db, prefix: &str) -> ddb_runtime::Key<Order> {
    for i in 0..20 {
        through
            .create(&open_order(&format!("{prefix}{i:02}")))
            .send()
            .await
            .unwrap();
    }
    Order::key(
        &CustomerId("123".into()),
        &open_order(&format!("{prefix}00")).placed_at,
        &OrderId(format!("{prefix}00")),
    )
    .unwrap()
}

/// Credentials that fail while `failing` is set.
#[derive(Debug)]
struct FlakyCredentials(Arc<std::sync::atomic::AtomicBool>);

impl aws_sdk_dynamodb::config::ProvideCredentials for FlakyCredentials {
    fn provide_credentials<'a>(
        &'a self,
    ) -> aws_credential_types::provider::future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        let failing = self.0.load(std::sync::atomic::Ordering::SeqCst);
        aws_credential_types::provider::future::ProvideCredentials::ready(if failing {
            Err(
                aws_credential_types::provider::error::CredentialsError::not_loaded(
                    "the test's credentials are failing",
                ),
            )
        } else {
            Ok(aws_sdk_dynamodb::config::Credentials::for_tests())
        })
    }
}

/// A write that fails before it is sent (its credentials cannot be had) applies
/// nothing: it is the SDK's error, not an unknown outcome, whether it is a
/// handle's first request or a later one.
#[tokio::test]
async fn a_write_that_never_left_is_not_an_unknown_outcome() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let config = ddb_tests::local()
        .config_builder()
        .credentials_provider(FlakyCredentials(failing.clone()))
        .identity_cache(aws_sdk_dynamodb::config::IdentityCache::no_cache())
        .build();
    let through = Db::new(aws_sdk_dynamodb::Client::from_conf(config))
        .with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    for later in [false, true] {
        if later {
            failing.store(false, std::sync::atomic::Ordering::SeqCst);
            after_many_requests(&through, "N").await;
        }
        failing.store(true, std::sync::atomic::Ordering::SeqCst);
        let put = through.put(&open_order("N99")).send().await;
        assert!(
            matches!(&put, Err(Error::Sdk { .. })),
            "a later request {later}: {put:?}"
        );
    }
}

/// An attempt the SDK gives up on (its attempt timeout) while the server
/// applies it is a possibly applied attempt, however many requests the
/// handle sent before: the retry meets the write and the put reports an
/// unknown outcome, never a version conflict of its own making.
#[tokio::test]
async fn a_timed_out_attempt_is_an_unknown_outcome_after_many_requests() {
    use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let proxy = ddb_tests::proxy::Proxy::start(ddb_tests::local().endpoint())
        .await
        .unwrap();
    let client = ddb_tests::proxied_client(&proxy);
    let timeouts = TimeoutConfig::builder()
        .operation_attempt_timeout(std::time::Duration::from_millis(300))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(
        client
            .config()
            .to_builder()
            .timeout_config(timeouts)
            .build(),
    );
    let through = Db::new(client).with_table_name::<Ecommerce>(db.table_name::<Ecommerce>());
    let key = after_many_requests(&through, "T").await;
    let mut loaded = through.get(key.clone()).send().await.unwrap().unwrap();
    loaded.total_cents += 1;
    let held = proxy.hold("PutItem");
    let put = through.put(&loaded).send().await;
    held.release();
    assert!(
        matches!(&put, Err(Error::WriteOutcomeUnknown { .. })),
        "{put:?}"
    );
    let stored = db.get(key).consistent_read(true).send().await.unwrap();
    assert_eq!(
        stored.unwrap().version,
        2,
        "the timed-out attempt was applied"
    );
}

/// After many requests of a handle, a write still knows that an earlier
/// attempt of its own may have been applied: a put whose first
/// answer is lost, and whose retry then fails its version condition, is an
/// unknown outcome, not a conflict.
#[tokio::test]
async fn a_lost_answer_is_an_unknown_outcome_after_many_requests() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, through) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let key = after_many_requests(&through, "M").await;
    for round in 0..3 {
        let mut loaded = through.get(key.clone()).send().await.unwrap().unwrap();
        loaded.total_cents += 1;
        proxy.fail("PutItem", 1, Fault::DropResponse);
        let put = through.put(&loaded).send().await;
        assert!(
            matches!(&put, Err(Error::WriteOutcomeUnknown { .. })),
            "round {round}: {put:?}"
        );
    }
    let stored = db.get(key).consistent_read(true).send().await.unwrap();
    assert_eq!(
        stored.unwrap().version,
        4,
        "every first attempt was applied"
    );
}

/// A handle on `client` with `interceptor` added to its configuration, as
/// a caller's own interceptors are, writing `Ecommerce` to `table`.
fn intercepted(
    client: &aws_sdk_dynamodb::Client,
    interceptor: impl aws_sdk_dynamodb::config::Intercept + 'static,
    table: &str,
) -> Db {
    let config = client
        .config()
        .to_builder()
        .interceptor(interceptor)
        .build();
    Db::new(aws_sdk_dynamodb::Client::from_conf(config)).with_table_name::<Ecommerce>(table)
}

/// Prefixes the table name of every action of a TransactWriteItems, as an
/// interceptor mapping logical table names to an environment's does.
#[derive(Debug)]
struct TablePrefix(&'static str);

impl aws_sdk_dynamodb::config::Intercept for TablePrefix {
    fn name(&self) -> &'static str {
        "table-prefix"
    }

    fn modify_before_serialization(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
        if let Some(input) = context
            .input_mut()
            .downcast_mut::<TransactWriteItemsInput>()
        {
            for action in input.transact_items.iter_mut().flatten() {
                if let Some(put) = &mut action.put {
                    put.table_name = format!("{}{}", self.0, put.table_name);
                }
            }
        }
        Ok(())
    }
}

/// A transaction sent again after a conflict, through interceptors that rewrite
/// its actions, is rewritten once: ddb sends its own copy of the actions again,
/// not what went on the wire, which the interceptors would rewrite a second
/// time (here: a table prefix applied twice, naming a table that does not
/// exist).
#[tokio::test]
async fn a_transaction_sent_again_through_rewriting_interceptors_is_rewritten_once() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let (proxy, _) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let table = db.table_name::<Ecommerce>().to_owned();
    let prefix: &'static str = Box::leak(table[..4].to_owned().into_boxed_str());
    let through = intercepted(
        &ddb_tests::proxied_client(&proxy),
        TablePrefix(prefix),
        &table[4..],
    );
    // A handle's later requests keep the caller's interceptors too.
    for i in 0..10 {
        through
            .transact_write()
            .create(&line("Y0", &format!("P{i}")))
            .send()
            .await
            .unwrap();
    }
    proxy.fail("TransactWriteItems", 1, Fault::TransactionConflict);
    through
        .transact_write()
        .create(&line("Y1", "P1"))
        .create(&line("Y1", "P2"))
        .send()
        .await
        .unwrap();
    assert_eq!(proxy.seen("TransactWriteItems"), 12);
    assert_eq!(count_items(&db).await, 12);
}

/// Adds a `sig` attribute to every item a PutItem or a transaction's put
/// writes, as an interceptor signing or encrypting items on the client does.
#[derive(Debug)]
struct ItemSignature;

impl aws_sdk_dynamodb::config::Intercept for ItemSignature {
    fn name(&self) -> &'static str {
        "item-signature"
    }

    fn modify_before_serialization(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        use aws_sdk_dynamodb::operation::put_item::PutItemInput;
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
        let sign = |item: &mut Option<ddb_runtime::Item>| {
            if let Some(item) = item {
                item.insert("sig".into(), AttributeValue::S("signed".into()));
            }
        };
        let input = context.input_mut();
        if let Some(put) = input.downcast_mut::<PutItemInput>() {
            sign(&mut put.item);
        } else if let Some(transaction) = input.downcast_mut::<TransactWriteItemsInput>() {
            for action in transaction.transact_items.iter_mut().flatten() {
                if let Some(put) = &mut action.put {
                    let mut item = Some(std::mem::take(&mut put.item));
                    sign(&mut item);
                    put.item = item.unwrap_or_default();
                }
            }
        }
        Ok(())
    }
}

/// A create of the same data again meets the item its interceptors stored
/// (here signed): it compares it with what it sent after them, so it is the
/// same item (already there), and other data is still another item. Plain
/// and exactly-once, after many requests of the handle.
#[tokio::test]
async fn a_create_through_item_rewriting_interceptors_recognises_its_own_item() {
    let db = ddb_tests::db_with_table::<Ecommerce>().await;
    let signing = intercepted(db.client(), ItemSignature, db.table_name::<Ecommerce>());
    for i in 0..10 {
        let created = signing.create(&open_order(&format!("S{i}"))).send().await;
        assert_eq!(created.unwrap(), Created::Created);
    }
    let stored =
        ddb_tests::raw_item::<Ecommerce>(&db, open_order("S0").primary_key().unwrap().to_item())
            .await
            .unwrap();
    assert_eq!(stored["sig"], AttributeValue::S("signed".into()));
    for exactly_once in [false, true] {
        let again = signing
            .create(&open_order("S1"))
            .exactly_once(exactly_once)
            .send()
            .await;
        assert_eq!(again.unwrap(), Created::AlreadyExisted, "{exactly_once}");
        let other = Order {
            total_cents: 1,
            ..open_order("S1")
        };
        let conflict = signing
            .create(&other)
            .exactly_once(exactly_once)
            .send()
            .await;
        assert!(
            matches!(conflict, Err(Error::AlreadyExists { .. })),
            "{exactly_once}: {conflict:?}"
        );
    }

    // A create whose first attempt was applied and its answer lost: the
    // retry meets the signed item its first attempt stored, its own.
    let (proxy, _) = ddb_tests::through_proxy::<Ecommerce>(&db).await;
    let signing = intercepted(
        &ddb_tests::proxied_client(&proxy),
        ItemSignature,
        db.table_name::<Ecommerce>(),
    );
    for i in 0..10 {
        let created = signing.create(&open_order(&format!("T{i}"))).send().await;
        assert_eq!(created.unwrap(), Created::Created);
    }
    proxy.fail("PutItem", 1, Fault::DropResponse);
    let created = signing.create(&open_order("T10")).send().await;
    assert_eq!(created.unwrap(), Created::Created);
    assert_eq!(proxy.injected("PutItem"), 1);
}
