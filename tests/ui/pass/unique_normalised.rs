// Every form of a unique constraint's options: `ignore_case`, `normalize =
// path` and `allow_empty`, on a field and among an entity's fields, and a
// field named like an option (`r#allow_empty`).
use ddb_runtime::model::Normalize;
use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Accounts", pk = "PK", sk = "SK")]
pub struct Accounts;

mod text {
    pub fn trimmed(value: &str) -> String {
        value.trim().to_owned()
    }
}

fn folded(value: &str) -> String {
    value.trim().to_lowercase()
}

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Accounts, entity = "User", pk = "USER#{id}", sk = "PROFILE")]
#[ddb(unique(tenant, handle, ignore_case))]
#[ddb(unique(tenant, display, normalize = text::trimmed, allow_empty))]
#[ddb(unique(tenant, r#allow_empty))]
pub struct User {
    pub id: String,
    #[ddb(unique)]
    pub email: String,
    #[ddb(unique(ignore_case))]
    pub login: String,
    #[ddb(unique(normalize = folded), sensitive)]
    pub phone: String,
    #[ddb(unique(allow_empty, ignore_case))]
    pub nickname: Option<String>,
    pub tenant: String,
    pub handle: String,
    pub display: String,
    pub allow_empty: bool,
}

fn main() {
    let unique = User::SCHEMA.unique;
    let options: Vec<_> = unique.iter().map(|u| (u.name, u.normalize, u.allow_empty)).collect();
    assert_eq!(options[0], ("email", None, false));
    assert_eq!(options[1], ("login", Some(Normalize::IgnoreCase), false));
    assert!(matches!(options[2], ("phone", Some(Normalize::Function(_)), false)));
    assert_eq!(options[3], ("nickname", Some(Normalize::IgnoreCase), true));
    assert_eq!(options[4], ("tenant_handle", Some(Normalize::IgnoreCase), false));
    assert!(matches!(options[5], ("tenant_display", Some(Normalize::Function(_)), true)));
    assert_eq!(options[6], ("tenant_allow_empty", None, false));
    assert_eq!(unique[6].fields, ["tenant", "allow_empty"]);
    if let Some(Normalize::Function(normalize)) = unique[2].normalize {
        assert_eq!(normalize(" +44 AB "), "+44 ab");
    }
    let _ = User::by_tenant_allow_empty(&"acme".to_string(), &true);
}
