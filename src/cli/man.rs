//! `sprague man` and `sprague help language`: the manual page, with every
//! subcommand and the language, for a user who has only the binary.

use std::io::{self, Write};

/// The language reference (docs/language.md), built into the binary.
pub const LANGUAGE: &str = include_str!("../../docs/language.md");

/// The manual page: clap's page of the top-level command, a section per
/// subcommand with its synopsis and options, and the language reference.
pub fn render(command: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_subcommands_section(out)?;
    writeln!(out, ".SH \"EVERY COMMAND\"")?;
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let name = format!("sprague {}", sub.get_name());
        let sub = sub.clone().bin_name(&name).display_name(&name);
        writeln!(out, ".SS \"{name}\"")?;
        let mut page = Vec::new();
        let man = clap_mangen::Man::new(sub.clone());
        man.render_synopsis_section(&mut page)?;
        man.render_description_section(&mut page)?;
        man.render_options_section(&mut page)?;
        // The sections of a subcommand's page are paragraphs of this one.
        for line in String::from_utf8_lossy(&page).lines() {
            match line.strip_prefix(".SH ") {
                Some(heading) if heading.contains("DESCRIPTION") => {}
                Some(heading) => writeln!(out, ".PP\n\\fI{}\\fR", heading.trim_matches('"'))?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    writeln!(out, ".SH LANGUAGE")?;
    writeln!(out, "{}", roff(LANGUAGE))?;
    writeln!(out, ".SH \"SEE ALSO\"")?;
    writeln!(
        out,
        "\\fBsprague help language\\fR prints the language reference above as plain text."
    )?;
    Ok(())
}

/// Markdown as plain roff: code blocks kept as written, headings as
/// subsections, every line safe from roff's control characters.
fn roff(markdown: &str) -> String {
    let mut text = String::new();
    let mut code = false;
    for line in markdown.lines() {
        let escaped = line.replace('\\', "\\e");
        let escaped = match escaped.starts_with(['.', '\'']) {
            true => format!("\\&{escaped}"),
            false => escaped,
        };
        if line.starts_with("```") {
            text += if code { ".fi\n.PP\n" } else { ".PP\n.nf\n" };
            code = !code;
        } else if code {
            text += &escaped;
            text.push('\n');
        } else if let Some(heading) = line.trim_start_matches('#').strip_prefix(' ') {
            if line.starts_with('#') {
                text += &format!(".SS \"{}\"\n", heading.replace('"', "\"\""));
            } else {
                text += &escaped;
                text.push('\n');
            }
        } else if line.is_empty() {
            text += ".PP\n";
        } else {
            text += &escaped;
            text.push('\n');
        }
    }
    text
}
