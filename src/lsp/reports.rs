//! miette reports as the editor's diagnostics: each error's primary label
//! as a range, its message and help, published for a document.

use super::*;

/// The diagnostics of a save's run: its evaluation errors, and, when it
/// did not finish, a word on the query it was answering.
pub(super) fn run_diagnostics(outcome: Outcome, text: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut query = None;
    let mut panicked = None;
    for progress in outcome.progress {
        match progress {
            Progress::Query { offset, len } => query = Some((offset, len)),
            Progress::Diagnostics(diagnostics) => found.extend(diagnostics),
            Progress::Panicked(message) => panicked = Some(message),
            Progress::Answer(_) | Progress::Done => {}
        }
    }
    let (severity, message) = match (outcome.end, panicked) {
        (_, Some(message)) => (
            DiagnosticSeverity::ERROR,
            format!(
                "sprague failed while answering this query, a bug: {message}\nhelp: please report it; the queries after it were not run"
            ),
        ),
        (End::Finished | End::Cancelled, None) => return found,
        (End::OutOfTime, None) => (
            DiagnosticSeverity::WARNING,
            format!(
                "not answered within the {} s a save may take; the queries after it were not run\nhelp: `sprague run` answers it without this bound",
                RUN_BUDGET.as_secs()
            ),
        ),
        (End::Failed(why), None) => (
            DiagnosticSeverity::ERROR,
            format!(
                "{why} while answering this query: a bug in sprague\nhelp: please report it; the queries after it were not run"
            ),
        ),
    };
    // The query stopped by the bound is said so below, not as interrupted.
    found.retain(|diagnostic| {
        diagnostic.code != Some(NumberOrString::String("sprague::eval::interrupted".into()))
    });
    let (offset, len) = query.unwrap_or((0, 0));
    found.push(Diagnostic {
        range: range(text, offset, len),
        severity: Some(severity),
        source: Some("sprague".into()),
        message,
        ..Default::default()
    });
    found
}

pub(super) fn publish(uri: Uri, diagnostics: Vec<Diagnostic>) -> Notification {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    };
    Notification::new(PublishDiagnostics::METHOD.into(), params)
}

/// The diagnostics of a report: one per error (a report of several
/// checking errors has them as related diagnostics).
pub(super) fn diagnostics(report: &Report, uri: &Uri, text: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let lines = Lines::new(text);
    let add = |diagnostic: &dyn miette::Diagnostic| {
        let labels: Vec<miette::LabeledSpan> = diagnostic
            .labels()
            .map(Iterator::collect)
            .unwrap_or_default();
        let at = primary(diagnostic).map_or(Range::default(), |label| {
            lines.range(label.offset(), label.len())
        });
        let mut message = diagnostic.to_string();
        if let Some(help) = diagnostic.help() {
            message += &format!("\nhelp: {help}");
        }
        let related = labels
            .iter()
            .filter(|label| label.label().is_some())
            .map(|label| DiagnosticRelatedInformation {
                location: Location {
                    uri: uri.clone(),
                    range: lines.range(label.offset(), label.len()),
                },
                message: label.label().unwrap_or_default().to_owned(),
            })
            .collect::<Vec<_>>();
        found.push(Diagnostic {
            range: at,
            severity: Some(DiagnosticSeverity::ERROR),
            code: diagnostic
                .code()
                .map(|code| NumberOrString::String(code.to_string())),
            source: Some("sprague".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        });
    };
    errors(report).into_iter().for_each(add);
    found
}

/// The errors of a report: itself, or the checking errors it groups as
/// related diagnostics.
pub(super) fn errors(report: &Report) -> Vec<&dyn miette::Diagnostic> {
    let related: Vec<_> = report.related().into_iter().flatten().collect();
    match related.is_empty() {
        true => vec![report.as_ref()],
        false => related,
    }
}

/// Where an error is: its primary label, or its first.
pub(super) fn primary(diagnostic: &dyn miette::Diagnostic) -> Option<miette::LabeledSpan> {
    let mut labels = diagnostic.labels()?.peekable();
    let first = labels.peek().cloned();
    labels.find(|label| label.primary()).or(first)
}
