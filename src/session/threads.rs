//! A pruned search on several threads (`grundy`, `wins?` and `best_move`):
//! the threads past the first ask the same question of the same position,
//! each with an engine and a table of its own, and share what they learn
//! of the regions they search (see `engine/shared.rs`). They take the
//! position's options in different orders and put off, near the top, an
//! option another thread is on, so that each is soon on options the
//! others have not reached, and reads what the others settled instead of
//! searching it again. The first thread to answer ends the others' work;
//! the answer given is the session's engine's, which keeps what it learned
//! for the questions to come. (Every thread takes a sum's moves in the same
//! order, so a winning move one finds is the one the others would.)

use std::sync::Arc;

use crate::engine::{Engine, EngineError, Shared};
use crate::interp::{Component, Interpreter};

use super::STACK_SIZE;
use super::moves::Solved;

/// The share of `--max-table` the table of shared facts takes.
const SHARED_SHARE: usize = 64;

/// The largest table of shared facts, in bytes (the least is 32 KB): only
/// what is learned near the top of the search is shared (Cram 5 × 8 shares
/// about 30,000 facts, a megabyte).
const SHARED_MOST: usize = 64 << 20;

/// The most options a search examines on one thread before the other
/// threads are started: about ten milliseconds of Cram.
const TRIAL_WORK: u64 = 50_000;

/// `ask`'s answer from the session's engine, on as many threads as the
/// engine is given when a pruned search answers it: the other threads
/// ask it too, of engines of their own. With one thread, or a question
/// no search answers, it is asked of the engine alone.
pub(super) fn on_threads<T>(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    ask: impl Fn(&Interpreter, &mut Engine<Component>) -> Solved<T> + Sync,
) -> Solved<T> {
    let searches = engine.would_search(interp, sum);
    threads_if(searches, interp, engine, ask)
}

/// [`on_threads`] for a question about a sum's options (`moves`, `why`,
/// `strategy`): on several threads if one of its parts is searched, valued
/// already or not, as its options are valued by the search.
pub(super) fn options_on_threads<T>(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    ask: impl Fn(&Interpreter, &mut Engine<Component>) -> Solved<T> + Sync,
) -> Solved<T> {
    let searches = engine.searches_a_part(interp, sum);
    threads_if(searches, interp, engine, ask)
}

/// `ask`'s answer on as many threads as the engine is given, if
/// `searches`; else from the engine alone.
fn threads_if<T>(
    searches: bool,
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    ask: impl Fn(&Interpreter, &mut Engine<Component>) -> Solved<T> + Sync,
) -> Solved<T> {
    let threads = engine
        .threads()
        .min(stacks_within_limit(engine.max_table()));
    if threads < 2 || !searches {
        return ask(interp, engine);
    }
    // A small search is over before the threads would start (each with an
    // engine of its own, and a table of shared facts to zero): it is tried
    // on this thread alone first, within a little work, and a question
    // that needs more goes on from what the try found.
    let max_work = engine.max_work();
    engine.set_max_work(max_work.min(TRIAL_WORK));
    let tried = ask(interp, engine);
    engine.set_max_work(max_work);
    match tried {
        Err(EngineError::TooMuchWork { .. }) if max_work > TRIAL_WORK => {}
        tried => return tried,
    }
    let max_table = engine.max_table();
    let bytes = (max_table / SHARED_SHARE).min(SHARED_MOST);
    let Some(shared) = Shared::within(bytes).map(Arc::new) else {
        return ask(interp, engine);
    };
    // Each thread's table takes its share of the bound, the session's
    // engine the share it is given now.
    let each = max_table / threads;
    engine.share(Some(shared.clone()), 0);
    engine.set_max_table(each);
    let parts = interp.threads();
    // The limits are this thread's; the others stop quietly at theirs,
    // each with a share of the states.
    let (max_states, max_work, max_listed, method) = (
        engine.max_states() / threads,
        engine.max_work(),
        engine.max_listed(),
        engine.method(),
    );
    let found = std::thread::scope(|scope| {
        for helper in 1..threads {
            let (shared, ask) = (shared.clone(), &ask);
            let spawned = std::thread::Builder::new()
                .name(format!("search {helper}"))
                .stack_size(STACK_SIZE)
                .spawn_scoped(scope, move || {
                    let rules = Interpreter::for_thread(parts);
                    let mut engine = Engine::new(max_states);
                    engine.set_max_work(max_work);
                    engine.set_max_listed(max_listed);
                    engine.set_max_table(each);
                    engine.set_method(method);
                    engine.set_threads(1);
                    engine.share(Some(shared.clone()), helper);
                    // Whatever stops a helper (a limit, the others'
                    // answer) leaves the answer to the session's engine.
                    if ask(&rules, &mut engine).is_ok() {
                        shared.answer();
                    }
                });
            // No room for another thread's stack: the threads there are
            // do the work.
            if spawned.is_err() {
                break;
            }
        }
        let mut found = ask(interp, engine);
        // Stopped because a helper answered: the answer is then in the
        // shared table, and asking again reads it.
        while matches!(found, Err(EngineError::Interrupted)) && shared.answered() {
            shared.clear_answer();
            found = ask(interp, engine);
        }
        shared.answer();
        found
    });
    engine.share(None, 0);
    engine.set_max_table(max_table);
    // Memory ran out with every thread's table and stack: asked again on
    // this thread alone, with what the others freed. (The others'
    // allocator arenas keep some of their room, and the error then says
    // `--threads 1`.)
    if let Err(EngineError::OutOfMemory { .. }) = found {
        return ask(interp, engine);
    }
    found
}

/// How many threads fit a limit on the process's address space (`ulimit
/// -v`, `prlimit --as`) with the search's table: each reserves a stack of
/// `STACK_SIZE`, the session's own among them, and the tables together
/// take up to `max_table`. Without a limit, any number.
pub(super) fn stacks_within_limit(max_table: usize) -> usize {
    threads_within(address_space_limit(), max_table)
}

fn threads_within(limit: Option<usize>, max_table: usize) -> usize {
    match limit {
        Some(room) => (room.saturating_sub(max_table) / STACK_SIZE).max(1),
        None => usize::MAX,
    }
}

/// The limit on the process's address space, if it has one.
pub fn address_space_limit() -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct it is given.
        let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
        if read == 0 && limit.rlim_cur != libc::RLIM_INFINITY {
            return Some(usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::thread::ThreadId;

    use super::*;
    use crate::engine::{DEFAULT_MAX_STATES, Gamma, Method};
    use crate::program::GameId;
    use crate::session::Session;
    use crate::values::{Board, Region, Set, Value};

    /// The threads that asked `grundy Cram(Grid(rows, cols))` of a session
    /// given two threads and `max_work`, and the value they answered.
    fn asked_by(rows: u32, cols: u32, max_work: u64) -> (Vec<ThreadId>, Option<u64>) {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        let cram = "game Cram(s) splits up to symmetry {\n  \
                    move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n}";
        assert!(session.run("<cram>", cram, &mut |_| {}));
        let nodes = Set::from_bits((1u128 << (rows * cols)) - 1);
        let board = Board::Grid { rows, cols };
        let region = Value::Region(Region { board, nodes });
        let sum = [Component::Game(GameId(0), smallvec::smallvec![region])];
        let interp = Interpreter::new(&session.program);
        let engine = &mut session.engine;
        engine.set_threads(2);
        engine.set_method(Method::Search);
        engine.set_max_work(max_work);
        let askers = Mutex::new(Vec::new());
        let found = on_threads(&interp, engine, &sum, |interp, engine| {
            askers.lock().unwrap().push(std::thread::current().id());
            engine.gamma_sum(interp, &sum)
        });
        let value = match found {
            Ok(Gamma::Finite(value)) => Some(value),
            _ => None,
        };
        (askers.into_inner().unwrap(), value)
    }

    /// A question answered within [`TRIAL_WORK`] is asked on this thread
    /// alone: no other thread is started for it (starting them took 3 ms
    /// a question, a thousand times the question's own time). One that
    /// needs more is asked on both threads, and answers as it must.
    #[test]
    fn only_a_question_past_a_little_work_starts_threads() {
        let here = std::thread::current().id();
        // Cram on 2 × 3: a domino along a row leaves a path of four cells
        // (*2), one across a 2 × 2 square or two dominoes (0): value 1.
        let (askers, value) = asked_by(2, 3, 1_000_000_000);
        assert_eq!((askers, value), (vec![here], Some(1)));
        // Cram on 4 × 9 is 1 (as igsolve finds it, README's table).
        let (askers, value) = asked_by(4, 9, 1_000_000_000);
        assert_eq!(value, Some(1));
        assert_eq!(askers[0], here);
        assert!(askers.iter().any(|&asker| asker != here), "{askers:?}");
        // With no more work allowed than the try's, the try's answer (the
        // limit) is the answer, and no thread is started.
        let (askers, value) = asked_by(4, 9, TRIAL_WORK);
        assert_eq!((askers, value), (vec![here], None));
    }

    /// The stacks (1 GB each) and the table must fit the limit together:
    /// under 2.32 GB with the default 1 GB table two threads ran out of
    /// memory on Cram 4 × 11 where one answers.
    #[test]
    fn threads_are_as_many_as_their_stacks_and_the_table_fit() {
        const GB: usize = 1 << 30;
        assert_eq!(threads_within(None, GB), usize::MAX);
        assert_eq!(threads_within(Some(2_320_000_000), GB), 1);
        assert_eq!(threads_within(Some(4_000_000_000), GB), 2);
        assert_eq!(threads_within(Some(4_000_000_000), 3 * GB), 1);
        assert_eq!(threads_within(Some(9 * GB), GB), 8);
        // A limit below the table: still the one thread there is.
        assert_eq!(threads_within(Some(GB / 2), GB), 1);
    }
}
