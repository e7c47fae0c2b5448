//! What ddb-runtime makes its users compile. The library needs
//! tokio's timer (retries sleep) and `spawn` (the loader's batches); the
//! in-process server (`ddb-local`,
//! a dev-dependency) needs the rest.
//! `uuid` is an optional key-segment type, compiled only with its feature.

const MANIFEST: &str = include_str!("../../ddb-runtime/Cargo.toml");

/// The `[dependencies]` line that declares `name`.
fn dependency(name: &str) -> &'static str {
    let dependencies = MANIFEST
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table");
    dependencies
        .lines()
        .find(|line| line.starts_with(&format!("{name} ")) || line.starts_with(&format!("{name}.")))
        .unwrap_or_else(|| panic!("no dependency `{name}`"))
}

/// The `[features]` line of `feature`.
fn feature(feature: &str) -> &'static str {
    MANIFEST
        .lines()
        .find(|line| line.starts_with(&format!("{feature} =")))
        .unwrap_or_else(|| panic!("no feature `{feature}`"))
}

#[test]
fn uuid_is_compiled_only_with_its_feature() {
    assert!(
        dependency("uuid").contains("optional = true"),
        "{}",
        dependency("uuid")
    );
    assert!(feature("uuid").contains("dep:uuid"), "{}", feature("uuid"));
}

#[test]
fn the_library_asks_tokio_for_its_timer_only() {
    let tokio = dependency("tokio");
    assert!(tokio.contains("default-features = false"), "{tokio}");
    for heavy in ["rt-multi-thread", "\"net\"", "io-util", "macros"] {
        assert!(
            !tokio.contains(heavy),
            "tokio feature {heavy} forced on users: {tokio}"
        );
    }
    assert_eq!(feature("local"), r#"local = ["dep:ddb-local"]"#);
}

#[test]
fn the_server_and_the_tooling_are_crates_of_their_own() {
    for apart in ["ddb-tools", "ddb-cli", "clap", "indicatif", "dynoxide-rs"] {
        let dependencies = MANIFEST
            .split("[dependencies]")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .unwrap();
        assert!(
            !dependencies
                .lines()
                .any(|l| l.starts_with(&format!("{apart} "))),
            "ddb-runtime depends on {apart}"
        );
    }
    assert!(dependency("ddb-local").contains("optional = true"));
}
