//! A Lambda function on the store table's DynamoDB stream: each record
//! decoded into the store's `CustomerItem` collection, by entity type.
//!
//! Built (not run) by CI: deploy it with `cargo lambda build --release
//! --example lambda_stream` and a DynamoDB Streams trigger. Locally it waits
//! for the Lambda runtime API, so it exits at once without one.

use ddb_examples::single_table::CustomerItem;
use ddb_examples::OrderStatus;
use ddb_runtime::stream::{self, events::Event, Image, StreamEvent};
use lambda_runtime::{service_fn, Error, LambdaEvent};

/// What the function does with each change: welcome new customers, count
/// shipments, note customers whose data expired, and say what it skipped.
async fn handle(event: LambdaEvent<Event>) -> Result<(), Error> {
    for change in stream::decode::<CustomerItem>(&event.payload)? {
        match (change.event, &change.old, &change.new) {
            (StreamEvent::Insert, _, Some(Image::Known(CustomerItem::Profile(customer)))) => {
                println!("welcome customer {}", customer.customer_id.0);
            }
            (
                StreamEvent::Modify,
                Some(Image::Known(CustomerItem::Order(before))),
                Some(Image::Known(CustomerItem::Order(after))),
            ) if before.status != OrderStatus::Shipped && after.status == OrderStatus::Shipped => {
                println!("order {} shipped", after.order_id.0);
            }
            (StreamEvent::Remove, Some(Image::Known(CustomerItem::Profile(c))), _)
                if change.expired =>
            {
                println!("customer {} expired", c.customer_id.0);
            }
            (_, old, new) => {
                let unknown = [old, new]
                    .into_iter()
                    .flatten()
                    .find_map(|image| match image {
                        Image::Unknown { entity_type, .. } => Some(entity_type.as_str()),
                        Image::Known(_) => None,
                    });
                if let Some(entity_type) = unknown {
                    println!("{} left alone: {entity_type}", change.sequence_number);
                }
            }
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
        eprintln!("not running in AWS Lambda (no AWS_LAMBDA_RUNTIME_API): nothing to do");
        return Ok(());
    }
    lambda_runtime::run(service_fn(handle)).await
}
