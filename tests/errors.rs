//! One snapshot per error class: each file in `tests/errors/` is run and
//! its errors rendered as a user sees them, without colour, at 80 columns.

use sprague::output::{self, ErrorStyle};
use sprague::session::{Event, Session};

/// A small state limit, so that a runaway game fails at once.
const MAX_STATES: usize = 1000;

#[test]
fn error_snapshots() {
    insta::glob!("errors/*.game", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = format!(
            "tests/errors/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let mut rendered = String::new();
        let mut session = Session::new(MAX_STATES);
        session.run(&name, &text, &mut |event| match event {
            Event::Error(report) => {
                rendered += &output::error(
                    &report,
                    ErrorStyle::Graphical {
                        colour: false,
                        width: 80,
                    },
                );
            }
            Event::Answer(answer) => rendered += &format!("{}\n", output::text(&answer)),
            other => panic!("unexpected {other:?}"),
        });
        assert!(!rendered.is_empty(), "{name} produced nothing");
        insta::assert_snapshot!(rendered);
    });
}
