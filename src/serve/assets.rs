//! The page and what it loads, embedded in the binary: it works with no
//! network at all.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

const INDEX: &str = include_str!("../../web/index.html");

/// Each asset: its name under `/assets/`, its content type and its text.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "layout.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/layout.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../web/style.css"),
    ),
    (
        "codemirror.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/vendor/codemirror/codemirror.js"),
    ),
    (
        "codemirror.css",
        "text/css; charset=utf-8",
        include_str!("../../web/vendor/codemirror/codemirror.css"),
    ),
    (
        "simple.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/vendor/codemirror/simple.js"),
    ),
    (
        "dagre.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/vendor/dagre/dagre.min.js"),
    ),
];

pub async fn index() -> Html<&'static str> {
    Html(INDEX)
}

pub async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(known, ..)| *known == name) {
        Some((_, kind, text)) => ([(header::CONTENT_TYPE, *kind)], *text).into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}
