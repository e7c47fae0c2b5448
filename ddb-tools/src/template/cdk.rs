//! The tables as an AWS CDK construct in TypeScript: the CloudFormation
//! export's resources, as aws-cdk-lib's `CfnTable` and `CfnGlobalTable`.

use serde_json::{Map, Value};

use ddb_runtime::model::TableDef;

use super::Deployment;

/// A TypeScript module for the AWS CDK (aws-cdk-lib 2): an exported
/// construct `DdbTables` that declares `tables` with exactly the resources of
/// [`cloudformation`](super::cloudformation) — the same logical IDs, the
/// same properties (as the L1 `CfnTable`, or `CfnGlobalTable` for a
/// replicated table, names them), deletion protection as a `RETAIN`
/// removal policy — each a public field named after its logical ID.
/// Synthesizing it gives the same resources as the CloudFormation export,
/// which the suite checks with aws-cdk-lib.
///
/// ```
/// #[derive(ddb_runtime::Table)]
/// #[ddb(name = "Ecommerce", pk = "PK", sk = "SK", ttl = "expiresAt")]
/// struct Ecommerce;
///
/// use ddb_runtime::Table;
/// let module = ddb_tools::cdk(&[&Ecommerce::DEF], &ddb_tools::Deployment::default());
/// assert!(module.contains("export class DdbTables extends Construct"));
/// assert!(module.contains("new dynamodb.CfnTable(this, \"EcommerceTable\""));
/// assert!(module.contains("\"attributeName\": \"expiresAt\""));
/// ```
pub fn cdk(tables: &[&TableDef], deployment: &Deployment) -> String {
    let template = super::cloudformation(tables, deployment);
    let resources = template["Resources"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut fields = String::new();
    let mut body = String::new();
    for (id, resource) in &resources {
        let class = match resource["Type"].as_str() {
            Some("AWS::DynamoDB::GlobalTable") => "CfnGlobalTable",
            _ => "CfnTable",
        };
        let field = field_name(id);
        fields.push_str(&format!("  public readonly {field}: dynamodb.{class};\n"));
        let props = typescript(&camel_case_keys(&resource["Properties"]), 2);
        body.push_str(&format!(
            "    this.{field} = new dynamodb.{class}(this, {}, {props});\n",
            quoted(id)
        ));
        body.push_str(&format!(
            "    this.{field}.overrideLogicalId({});\n",
            quoted(id)
        ));
        if resource["DeletionPolicy"] == "Retain" {
            body.push_str(&format!(
                "    this.{field}.applyRemovalPolicy(RemovalPolicy.RETAIN);\n"
            ));
        }
        if let Some(metadata) = resource["Metadata"].as_object() {
            for (key, value) in metadata {
                body.push_str(&format!(
                    "    this.{field}.addMetadata({}, {});\n",
                    quoted(key),
                    typescript(value, 2)
                ));
            }
        }
    }
    format!(
        "// The DynamoDB tables declared in code, written by ddb_tools::cdk.\n\
         import {{ Aws, RemovalPolicy }} from \"aws-cdk-lib\";\n\
         import * as dynamodb from \"aws-cdk-lib/aws-dynamodb\";\n\
         import {{ Construct }} from \"constructs\";\n\
         \n\
         export class DdbTables extends Construct {{\n\
         {fields}\n  constructor(scope: Construct, id: string) {{\n    super(scope, id);\n\
         {body}  }}\n}}\n"
    )
}

/// `EcommerceTable` as a field: `ecommerceTable`.
fn field_name(id: &str) -> String {
    let mut chars = id.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// CloudFormation's property names as aws-cdk-lib's: the leading capitals
/// lowered, an acronym's last one kept when a word follows
/// (`SSESpecification` is `sseSpecification`, `KMSMasterKeyId`
/// `kmsMasterKeyId`). A policy document is JSON of its own, kept as it is.
fn camel_case_keys(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut renamed = Map::new();
            for (key, value) in object {
                let value = if key == "PolicyDocument" || is_reference(value) {
                    value.clone()
                } else {
                    camel_case_keys(value)
                };
                renamed.insert(camel_case(key), value);
            }
            Value::Object(renamed)
        }
        Value::Array(items) => Value::Array(items.iter().map(camel_case_keys).collect()),
        other => other.clone(),
    }
}

fn camel_case(key: &str) -> String {
    let capitals = key.chars().take_while(char::is_ascii_uppercase).count();
    let followed_by_word = key.len() > capitals && capitals > 1;
    let lowered = if followed_by_word {
        capitals - 1
    } else {
        capitals
    };
    key[..lowered].to_ascii_lowercase() + &key[lowered..]
}

/// `{ "Ref": "AWS::Region" }`, the stack's Region.
fn is_reference(value: &Value) -> bool {
    value.get("Ref").is_some_and(|r| r == "AWS::Region")
}

/// `value` as a TypeScript expression, indented by `depth` levels; the
/// stack's Region is `Aws.REGION`.
fn typescript(value: &Value, depth: usize) -> String {
    if is_reference(value) {
        return "Aws.REGION".to_owned();
    }
    let inner = "  ".repeat(depth + 1);
    let outer = "  ".repeat(depth);
    match value {
        Value::Object(object) if !object.is_empty() => {
            let entries: Vec<String> = object
                .iter()
                .map(|(k, v)| format!("{inner}{}: {}", quoted(k), typescript(v, depth + 1)))
                .collect();
            format!("{{\n{},\n{outer}}}", entries.join(",\n"))
        }
        Value::Array(items) if !items.is_empty() => {
            let entries: Vec<String> = items
                .iter()
                .map(|v| format!("{inner}{}", typescript(v, depth + 1)))
                .collect();
            format!("[\n{},\n{outer}]", entries.join(",\n"))
        }
        other => other.to_string(),
    }
}

fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::camel_case;

    #[test]
    fn property_names_follow_aws_cdk_lib() {
        for (cloudformation, cdk) in [
            ("TableName", "tableName"),
            ("SSESpecification", "sseSpecification"),
            ("SSEEnabled", "sseEnabled"),
            ("SSEType", "sseType"),
            ("KMSMasterKeyId", "kmsMasterKeyId"),
            ("MaxReadRequestUnits", "maxReadRequestUnits"),
            ("Region", "region"),
        ] {
            assert_eq!(camel_case(cloudformation), cdk);
        }
    }
}
