//! Every example runs and prints exactly the output kept beside it.

use std::path::Path;
use std::process::Command;

#[test]
fn every_example_prints_its_expected_output() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "game") {
            continue;
        }
        let expected_path = path.with_extension("out");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no expected output beside it", path.display()));
        let output = Command::new(env!("CARGO_BIN_EXE_sprague"))
            .arg("run")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{} failed:\n{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            expected,
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} examples found");
}
