//! Drift: what a deployment template declares of a table against the code,
//! in the form of [`plan_sync`](ddb_runtime::schema::plan_sync)'s diff.

use serde_json::Value;

use ddb_runtime::__private::tools::{compare, compare_settings};
use ddb_runtime::model::TableDef;
use ddb_runtime::schema::{SyncChange, SyncPlan, TableSettings};

use super::Deployment;
use ddb_runtime::Error;

/// A deployment template, read: a CloudFormation or SAM template (JSON, or
/// YAML with feature `yaml`) or a Terraform configuration in JSON syntax.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    document: Value,
}

impl Template {
    /// Reads a template in JSON: CloudFormation (`Resources`) or Terraform
    /// (`resource`).
    ///
    /// ```
    /// let template = ddb_tools::Template::from_json(r#"{"Resources": {}}"#)?;
    /// # Ok::<(), ddb_runtime::Error>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Template, Error> {
        let document = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        Template::from_value(document)
    }

    /// Reads a CloudFormation template in YAML; the short-form tags
    /// (`!Ref`, `!GetAtt`, `!Sub`, ...) are read as their long form.
    ///
    /// ```
    /// let template = ddb_tools::Template::from_yaml("Resources: {}\n")?;
    /// # Ok::<(), ddb_runtime::Error>(())
    /// ```
    #[cfg(feature = "yaml")]
    #[cfg_attr(docsrs, doc(cfg(feature = "yaml")))]
    pub fn from_yaml(text: &str) -> Result<Template, Error> {
        Template::from_value(super::yaml::read(text).map_err(invalid)?)
    }

    /// Reads a template in JSON, or else (with feature `yaml`) in YAML.
    pub fn parse(text: &str) -> Result<Template, Error> {
        match Template::from_json(text) {
            Ok(template) => Ok(template),
            #[cfg(feature = "yaml")]
            Err(_) if !text.trim_start().starts_with('{') => Template::from_yaml(text),
            Err(error) => Err(error),
        }
    }

    /// A template already parsed into a JSON value.
    pub fn from_value(document: Value) -> Result<Template, Error> {
        if document.get("Resources").is_some() || document.get("resource").is_some() {
            Ok(Template { document })
        } else {
            Err(invalid(
                "neither a CloudFormation template (no `Resources`) nor a Terraform configuration (no `resource`)".to_owned(),
            ))
        }
    }

    /// The table resource declaring `table` under the physical name
    /// `name` (by its `TableName` or `name`, else by the logical ID or
    /// label ddb gives it), as CloudFormation `Properties`; `None` when the
    /// template has none.
    fn properties_of(&self, table: &TableDef, name: &str) -> Option<Value> {
        if let Some(resources) = self.document["Resources"].as_object() {
            let tables = resources.iter().filter(|(_, r)| {
                r["Type"] == "AWS::DynamoDB::Table" || r["Type"] == "AWS::DynamoDB::GlobalTable"
            });
            let mut by_id = None;
            for (id, resource) in tables {
                let properties = &super::global_table::table_properties(&resource["Properties"]);
                match properties["TableName"].as_str() {
                    Some(found) if found == name => return Some(properties.clone()),
                    Some(_) => {}
                    None if *id == super::logical_id(table) => by_id = Some(properties.clone()),
                    None => {}
                }
            }
            return by_id;
        }
        let resources = terraform_resources(&self.document["resource"]);
        let tables = resources
            .iter()
            .filter(|(kind, ..)| *kind == "aws_dynamodb_table");
        let named = tables.clone().find(|(_, _, body)| body["name"] == name);
        // A name Terraform computes (`"${var.stage}-orders"`): the label
        // ddb gives the table.
        let computed = |body: &Value| body["name"].as_str().is_none_or(|n| n.contains("${"));
        let labelled = || {
            let label = super::terraform::label(table.name);
            tables
                .clone()
                .find(|(_, found, body)| **found == label && computed(body))
        };
        let (_, label, body) = named.or_else(labelled)?;
        let references = [
            format!("${{aws_dynamodb_table.{label}.name}}"),
            format!("${{aws_dynamodb_table.{label}.id}}"),
        ];
        let names_table = |index: &Value| {
            index["table_name"] == name
                || references.iter().any(|r| index["table_name"] == r.as_str())
        };
        let vectors: Vec<&Value> = resources
            .iter()
            .filter(|(kind, _, body)| *kind == "aws_dynamodb_vector_index" && names_table(body))
            .map(|(.., body)| *body)
            .collect();
        let insights = resources.iter().find(|(kind, _, body)| {
            *kind == "aws_dynamodb_contributor_insights"
                && names_table(body)
                && body["index_name"].is_null()
        });
        let arn = format!("${{aws_dynamodb_table.{label}.arn}}");
        let policy = resources.iter().find(|(kind, _, body)| {
            *kind == "aws_dynamodb_resource_policy" && body["resource_arn"] == arn.as_str()
        });
        let mut properties = super::terraform::as_cloudformation(body, &vectors);
        if let Some((.., insights)) = insights {
            let mode = match &insights["mode"] {
                Value::Null => serde_json::json!("ACCESSED_AND_THROTTLED_KEYS"),
                mode => mode.clone(),
            };
            properties["ContributorInsightsSpecification"] =
                serde_json::json!({ "Enabled": true, "Mode": mode });
        }
        if let Some((.., policy)) = policy {
            properties["ResourcePolicy"] =
                serde_json::json!({ "PolicyDocument": policy["policy"] });
        }
        Some(properties)
    }
}

/// Every resource of a Terraform JSON `resource` value, as (type, label,
/// body): each level may be an object or an array of objects.
fn terraform_resources(resource: &Value) -> Vec<(&str, &String, &Value)> {
    let mut found = Vec::new();
    for types in super::terraform::objects(resource) {
        for (kind, labels) in types.as_object().into_iter().flatten() {
            for labels in super::terraform::objects(labels) {
                for (label, bodies) in labels.as_object().into_iter().flatten() {
                    for body in super::terraform::objects(bodies) {
                        found.push((kind.as_str(), label, body));
                    }
                }
            }
        }
    }
    found
}

fn invalid(reason: String) -> Error {
    Error::InvalidTemplate { reason }
}

/// What differs between the table `template` declares under the name
/// `name` and the code's `table`, as [`plan_sync`](ddb_runtime::schema::plan_sync) reports a live
/// table: an index or a vector index missing (a change, `+`), another key
/// or projection, an index the code does not declare, time to live on
/// another attribute, a stream whose view does not carry what the code
/// reads (differences, `!`); the table missing altogether is
/// [`SyncChange::CreateTable`]. An empty plan means no drift.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// #[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// struct Ecommerce;
///
/// use ddb_runtime::Table;
/// let generated = ddb_tools::cloudformation(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
/// let template = ddb_tools::Template::from_value(generated)?;
/// assert!(ddb_tools::drift(&template, &Ecommerce::DEF, "Ecommerce")?.is_empty());
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub fn drift(template: &Template, table: &TableDef, name: &str) -> Result<SyncPlan, Error> {
    drift_with(template, table, name, &TableSettings::default())
}

/// [`drift`] of the table as `deployment` deploys it: under its name there,
/// and with its [`TableSettings`] (customer managed key, tags, maximum and
/// warm throughput, resource policy) compared too, as
/// [`plan_sync_with`](ddb_runtime::schema::plan_sync_with) compares a live
/// table's.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK")]
/// struct Ecommerce;
///
/// use ddb_runtime::schema::{SyncChange, TableSettings};
/// use ddb_runtime::Table;
/// use ddb_tools::Deployment;
/// let template = ddb_tools::Template::from_value(ddb_tools::cloudformation(&[&Ecommerce::DEF], &Deployment::default()))?;
/// let tagged = Deployment::default().settings(TableSettings::default().tag("team", "orders"));
/// let plan = ddb_tools::drift_in(&template, &Ecommerce::DEF, &tagged)?;
/// assert_eq!(plan.changes, [SyncChange::Tag(vec![("team".into(), "orders".into())])]);
/// # Ok::<(), ddb_runtime::Error>(())
/// ```
pub fn drift_in(
    template: &Template,
    table: &TableDef,
    deployment: &Deployment,
) -> Result<SyncPlan, Error> {
    let settings = deployment.settings_of(table);
    // A deployment that turns point-in-time recovery off exports no period.
    let table = TableDef {
        recovery_period_days: table
            .recovery_period_days
            .filter(|_| deployment.point_in_time_recovery_enabled()),
        ..*table
    };
    drift_with(template, &table, deployment.name_of(&table), settings)
}

fn drift_with(
    template: &Template,
    table: &TableDef,
    name: &str,
    settings: &TableSettings,
) -> Result<SyncPlan, Error> {
    let Some(properties) = template.properties_of(table, name) else {
        return Ok(SyncPlan {
            changes: vec![SyncChange::CreateTable],
            differences: Vec::new(),
        });
    };
    let (described, time_to_live, observed) =
        super::described::describe(&properties).map_err(invalid)?;
    let mut plan = compare(table, &described, time_to_live);
    compare_settings(&mut plan, table, settings, &described, &observed);
    Ok(plan)
}
