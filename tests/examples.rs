//! Every example runs and prints exactly the output kept beside it.

mod common;

#[test]
fn every_example_prints_its_expected_output() {
    common::every_example_prints_its_expected_output(&[]);
}
