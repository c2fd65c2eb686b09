//! Files written so that a kill at any moment leaves the old file or the
//! new one under the name asked for, never half of one: the new one is
//! written beside it under another name, flushed to the disk, and renamed
//! into place (a rename within a directory replaces the name at once).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes the file at `path` with `write`, aside first and then renamed
/// into place. If writing fails, the file aside is removed and whatever
/// was at `path` stays as it was.
///
/// A path that is not a regular file (`/dev/null`, `/dev/stdout`, a pipe)
/// is written in place: renaming over it would replace the device with a
/// file. A link is followed (even to a file not yet there): the file it
/// names is the one replaced.
pub fn write_aside(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file()) {
        let file = std::fs::OpenOptions::new().write(true).open(path)?;
        return written(file, write).map(drop);
    }
    let path = &followed(path);
    let aside = aside(path)?;
    remove_stale(path);
    let done = File::create(&aside)
        .and_then(|file| written(file, write)?.sync_all())
        .and_then(|()| std::fs::rename(&aside, path));
    match done {
        Ok(()) => {
            // The rename itself lasts through a power cut once the
            // directory is flushed; a directory that cannot be opened
            // (some systems) is left to the system.
            let directory = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty());
            if let Ok(directory) = File::open(directory.unwrap_or(Path::new("."))) {
                let _ = directory.sync_all();
            }
            Ok(())
        }
        Err(error) => {
            let _ = std::fs::remove_file(&aside);
            Err(error)
        }
    }
}

/// Whether [`write_aside`] could write `path`: the file it writes aside
/// is made and taken away again, `path` itself left as it is (a path that
/// is not a regular file is opened for writing, and closed).
pub fn writable(path: &Path) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file()) {
        return std::fs::OpenOptions::new().write(true).open(path).map(drop);
    }
    let aside = aside(&followed(path))?;
    File::create(&aside)?;
    std::fs::remove_file(&aside)
}

/// `write` into a file, flushed.
fn written(
    file: File,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<File> {
    let mut writer = BufWriter::new(file);
    write(&mut writer)?;
    writer.into_inner().map_err(|error| error.into_error())
}

/// The path a chain of links ends at (at most 40 links followed).
fn followed(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent().unwrap_or(Path::new("")).join(target),
            Err(_) => break,
        }
    }
    path
}

/// The name a file is written under before it is renamed to `path`: hidden,
/// beside it, and marked with the process, so that two runs writing the
/// same file do not write into one another's.
pub fn aside(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    Ok(path.with_file_name(format!(
        ".{}.{}.part",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// How old a file left aside by a process no longer running must be to
/// be taken away: one written over a network by another machine's process
/// is left alone while it is being written.
const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Takes away the files left aside for `path` by runs killed while they
/// wrote it (`kill -9`, a power cut): named as [`aside`] names them, by a
/// process not running now, and untouched for [`STALE`]. Where the
/// processes running cannot be told (no `/proc`), none is taken away.
fn remove_stale(path: &Path) {
    let (Some(name), Some(directory)) = (path.file_name(), path.parent()) else {
        return;
    };
    let directory = match directory.as_os_str().is_empty() {
        true => Path::new("."),
        false => directory,
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let Some(pid) = file_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".part"))
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let old = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age >= STALE));
        if old && !running(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether the process `pid` runs now; true where that cannot be told.
fn running(pid: &str) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_whole_replaces_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table");
        std::fs::write(&path, b"old").unwrap();
        write_aside(&path, |writer| writer.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!aside(&path).unwrap().exists());
    }

    /// A write that fails halfway leaves the old file whole, and nothing
    /// aside: what a kill at that moment would leave under the name.
    #[test]
    fn a_write_that_fails_halfway_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table");
        std::fs::write(&path, b"old and whole").unwrap();
        let failed = write_aside(&path, |writer| {
            writer.write_all(&[7; 100_000])?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old and whole");
        assert!(!aside(&path).unwrap().exists());
        // With no old file, none is made.
        let fresh = dir.path().join("fresh");
        let failed = write_aside(&fresh, |_| Err(std::io::Error::other("no")));
        assert!(failed.is_err() && !fresh.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A file left aside by a run killed while it wrote (a process not
    /// running, untouched for ten minutes) is taken away by the next write;
    /// one of a running process, or one written a moment ago, stays.
    #[test]
    #[cfg(target_os = "linux")]
    fn files_left_aside_by_killed_runs_are_taken_away() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table");
        let left = |pid: u64, age: u64| {
            let part = dir.path().join(format!(".table.{pid}.part"));
            let file = File::create(&part).unwrap();
            let then = std::time::SystemTime::now() - std::time::Duration::from_secs(age);
            file.set_modified(then).unwrap();
            part
        };
        // Process numbers stop well below 2^22 on Linux.
        let (dead, old) = (left(4_194_400, 3_600), left(4_194_401, 60));
        let mine = left(std::process::id().into(), 3_600);
        let other = dir.path().join(".other.4194400.part");
        File::create(&other)
            .unwrap()
            .set_modified(std::time::SystemTime::UNIX_EPOCH)
            .unwrap();
        write_aside(&path, |writer| writer.write_all(b"new")).unwrap();
        assert!(!dead.exists());
        assert!(old.exists() && other.exists());
        // This process's own file aside is the one it wrote and renamed.
        assert!(!mine.exists());
        let running = left(1, 3_600);
        write_aside(&path, |writer| writer.write_all(b"newer")).unwrap();
        assert!(running.exists());
    }

    #[test]
    fn a_link_is_followed_and_the_file_it_names_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_aside(&link, |writer| writer.write_all(b"through")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"through");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }
}
