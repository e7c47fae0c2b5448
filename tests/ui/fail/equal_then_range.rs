use ddb_runtime::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "Events", pk = "PK", sk = "SK")]
#[ddb(index(name = "RegionTime", pk("tenant"), sk("ts: N", "seq: N")))]
pub struct Events;

#[derive(Entity, Serialize, Deserialize)]
#[ddb(table = Events, entity = "Event", pk = "TENANT#{tenant}", sk = "EVENT#{day}#{id}", query = "by_day")]
#[ddb(index(name = "RegionTime", pk(tenant), sk(ts, seq), query = "by_time"))]
pub struct Event {
    pub tenant: String,
    pub day: u32,
    pub id: String,
    pub ts: u64,
    pub seq: u32,
}

async fn read(db: ddb_runtime::Db, tenant: String) {
    // Every field held equal leaves none for the range: that is `.eq(...)`.
    let _ = db.query(Event::by_day(&tenant)).eq_then_gt((&1u32, &"a".to_string()), &1u32);
    // The leading fields out of key order.
    let _ = db.query(Event::by_day(&tenant)).eq_then_gt(&"a".to_string(), &1u32);
    // The range's value of another type than the next field.
    let _ = db.query(Event::by_day(&tenant)).eq_then_lt(&1u32, &7u64);
    // On a multi-attribute sort key: the next attribute is `seq: u32`.
    let _ = db.query(Event::by_time(&tenant)).eq_then_between(&1u64, &"a".to_string(), &"b".to_string());
    // The leading value of another type than the first attribute.
    let _ = db.query(Event::by_time(&tenant)).eq_then_ge(&1u32, &1u32);
}

fn main() {}
