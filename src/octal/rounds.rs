//! A table extended by several threads at once.
//!
//! The heaps to go are given out in batches of [`BATCH`]. Whoever takes a
//! batch finds, for each of its heaps, the least value among the options
//! whose heaps are all known (settled when the batch was given out): its
//! *guess* ([`Moves::guess`]). The table settles the heaps in order. The
//! options a guess left out are those with a heap that was not yet
//! settled, known by then, and they are few: a split of a heap `j` past
//! the bound has its larger part past the bound only if its smaller part
//! is at most `j`. If none of them has the guess, the guess is the value
//! (it is still the least value no option has). Otherwise the guess is
//! carried on from what it found ([`Moves::resume`]): it marked every
//! common value among its options, so a common value above it that none
//! of them nor of those left out has is the value, and a rare one is
//! looked for among the splits. About 2% of Grundy's game's guesses fail
//! with two threads; one heap in 9,000 is worked out anew.
//!
//! The table's own thread settles, and takes a batch itself whenever the
//! oldest batch given out is not back yet; each other thread keeps a copy
//! of the values (a byte a heap while they fit), sent with each batch, and
//! answers its batches in order. Nothing is shared but the channels, and
//! no thread waits for another while it has a batch to work on. Batches
//! are given out at most [`AHEAD`] per thread past the heaps settled: the
//! further ahead, the more options a guess leaves out and the more guesses
//! fail.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use super::batch::BATCH;
use super::{Known, Moves, Scratch, Table, Watch, marked_above};
use crate::engine::Stopped;

/// Batches another thread may have been given that the table has not
/// settled.
const AHEAD: usize = 2;

/// Batches past the other threads' that the table may take itself while
/// it waits for theirs.
const OWN: usize = 3;

/// A heap's guess, and which of the 128 values above it the guess found
/// among the options it did not leave out: with them a guess that fails
/// is carried on, not worked out anew ([`Moves::resume`]).
struct Guess {
    value: u64,
    above: u128,
}

/// A batch for another thread, with the values settled since its last.
struct Job {
    values: Vec<u64>,
    mask: u64,
    heaps: Range<usize>,
}

/// Another thread, as the table sees it.
struct Helper {
    jobs: Sender<Job>,
    answers: Receiver<(u64, Vec<Guess>)>,
    /// Values sent so far.
    sent: usize,
    /// Batches given and not answered.
    given: usize,
    /// Batches given and taken back (see [`Helper::answer`]): their
    /// answers, the first to come, are dropped.
    taken_back: usize,
}

/// What a thread has sent back for the oldest batch it was given that
/// was not taken back.
enum Answer {
    Back((u64, Vec<Guess>)),
    NotYet,
    /// The thread is gone: it panicked, and answers nothing.
    Gone,
}

impl Helper {
    /// The answer to the oldest batch given and not taken back; if `wait`,
    /// waited for a while (see [`TAKE_BACK`]) before it is not yet there.
    fn answer(&mut self, wait: bool) -> Answer {
        let until = Instant::now() + if wait { TAKE_BACK } else { Duration::ZERO };
        loop {
            match ask_until(&self.answers, until) {
                Ok(_) if self.taken_back > 0 => {
                    self.taken_back -= 1;
                    self.given -= 1;
                }
                Ok(answer) => {
                    self.given -= 1;
                    return Answer::Back(answer);
                }
                Err(TryRecvError::Empty) => return Answer::NotYet,
                Err(TryRecvError::Disconnected) => return Answer::Gone,
            }
        }
    }

    /// Drops the answers to batches taken back that have come.
    fn drop_taken_back(&mut self) {
        while self.taken_back > 0 && self.answers.try_recv().is_ok() {
            self.taken_back -= 1;
            self.given -= 1;
        }
    }
}

/// A batch given out and not settled: who works on it, or its guesses
/// and the mask they class values by; and the heaps settled when it was
/// given out.
struct Given {
    heaps: Range<usize>,
    bound: usize,
    guesses: Guesses,
}

enum Guesses {
    Asked(usize),
    Found(u64, Vec<Guess>),
}

/// Extends `table` through heap `n` with its threads.
pub(super) fn extend(
    table: &mut Table,
    n: usize,
    watch: &mut dyn FnMut(usize) -> bool,
) -> Result<(), Stopped> {
    let (threads, late) = (table.threads, table.late);
    // Not stopped (a stop ended the last extension, if any).
    table.moves.stopped.store(false, Relaxed);
    let moves = table.moves.clone();
    let moves = &moves;
    std::thread::scope(|scope| {
        let mut helpers: Vec<Helper> = (1..threads)
            .filter_map(|_| {
                let (jobs, asked) = channel::<Job>();
                let (told, answers) = channel();
                // A thread that cannot be had is done without.
                let builder = std::thread::Builder::new();
                let spawned = builder.spawn_scoped(scope, move || {
                    let mut known = Known::new();
                    let mut scratch = Scratch::default();
                    while let Some(job) = soon(&asked) {
                        if !late.is_zero() && (job.heaps.start / BATCH).is_multiple_of(3) {
                            std::thread::sleep(late);
                        }
                        for value in job.values {
                            known.push(value);
                        }
                        known.remask(job.mask);
                        let go_on = &mut |_| !moves.stopped.load(Relaxed);
                        let Some(guesses) = moves.guesses(&known, &mut scratch, job.heaps, go_on)
                        else {
                            break;
                        };
                        if told.send((known.rare.mask, guesses)).is_err() {
                            break;
                        }
                    }
                });
                spawned.ok().map(|_| Helper {
                    jobs,
                    answers,
                    sent: 0,
                    given: 0,
                    taken_back: 0,
                })
            })
            .collect();
        if helpers.is_empty() {
            return table.extend(n, watch);
        }
        let mut given: VecDeque<Given> = VecDeque::new();
        let mut next = table.values.len();
        let mut turn = 0;
        let mut watch = Watch::new(watch, moves);
        // Stopped: the other threads leave their batches at once.
        let stop = || {
            moves.stopped.store(true, Relaxed);
            Err(Stopped)
        };
        loop {
            let settled = table.values.len();
            if !watch.go_on(settled) {
                return stop();
            }
            let ahead = (AHEAD * helpers.len() + OWN) * BATCH;
            let heaps = |first: usize| first..(first + BATCH).min(n + 1);
            // Batches for the other threads, in turn, as many as each may
            // have (a batch taken back counts until its answer comes).
            helpers.iter_mut().for_each(Helper::drop_taken_back);
            while next <= n && helpers[turn].given < AHEAD {
                let helper = &mut helpers[turn];
                helper.given += 1;
                let job = Job {
                    values: table.values[helper.sent..settled].to_vec(),
                    mask: table.known.rare.mask,
                    heaps: heaps(next),
                };
                helper.sent = settled;
                if helper.jobs.send(job).is_err() {
                    // The thread panicked: the scope passes it on.
                    break;
                }
                given.push_back(Given {
                    heaps: heaps(next),
                    bound: settled,
                    guesses: Guesses::Asked(turn),
                });
                next = heaps(next).end;
                turn = (turn + 1) % helpers.len();
            }
            // The oldest batch's guesses: back, or while they are not, one
            // more batch taken here, or the wait.
            let can_take = next <= n && next < settled + ahead;
            let back = match given.front_mut() {
                None if next > n => return Ok(()),
                None => false,
                Some(Given {
                    guesses: Guesses::Found(..),
                    ..
                }) => true,
                Some(oldest) => {
                    let Guesses::Asked(helper) = oldest.guesses else {
                        unreachable!("the guesses are asked for");
                    };
                    let helper = &mut helpers[helper];
                    // With nothing else to do, the answer is waited for a
                    // while; a thread that keeps it longer (its core taken
                    // by another program, say) has the batch taken back
                    // and guessed here, from the heaps settled since.
                    match helper.answer(!can_take) {
                        Answer::NotYet if can_take => false,
                        Answer::NotYet => {
                            helper.taken_back += 1;
                            let (known, scratch) = (&table.known, &mut table.scratch);
                            let go_on = &mut |heap| watch.go_on(heap);
                            let Some(guesses) =
                                moves.guesses(known, scratch, oldest.heaps.clone(), go_on)
                            else {
                                return stop();
                            };
                            oldest.bound = settled;
                            oldest.guesses = Guesses::Found(known.rare.mask, guesses);
                            true
                        }
                        Answer::Back((mask, guesses)) => {
                            oldest.guesses = Guesses::Found(mask, guesses);
                            true
                        }
                        // A thread that is gone answered nothing: its
                        // heaps are worked out here.
                        Answer::Gone => {
                            oldest.guesses = Guesses::Found(0, Vec::new());
                            true
                        }
                    }
                }
            };
            if !back {
                let go_on = &mut |heap| watch.go_on(heap);
                let Some(guesses) =
                    moves.guesses(&table.known, &mut table.scratch, heaps(next), go_on)
                else {
                    return stop();
                };
                given.push_back(Given {
                    heaps: heaps(next),
                    bound: settled,
                    guesses: Guesses::Found(table.known.rare.mask, guesses),
                });
                next = heaps(next).end;
                continue;
            }
            let Some(Given {
                heaps,
                bound,
                guesses: Guesses::Found(mask, guesses),
            }) = given.pop_front()
            else {
                unreachable!("the oldest batch is back");
            };
            let mut guesses = guesses.into_iter();
            for heap in heaps {
                if !watch.go_on(heap) {
                    return stop();
                }
                table.settle(moves, (heap, bound), (mask, guesses.next()));
            }
        }
    })
}

impl Moves {
    /// The guesses for a batch of heaps, from the values known; `None` if
    /// `go_on`, asked before each heap, says to stop.
    fn guesses(
        &self,
        known: &Known,
        scratch: &mut Scratch,
        heaps: Range<usize>,
        go_on: &mut dyn FnMut(usize) -> bool,
    ) -> Option<Vec<Guess>> {
        let batch = self.batch(known, scratch, heaps.start);
        heaps
            .map(|heap| {
                go_on(heap).then(|| {
                    let value = self.guess(known, scratch, heap, batch.as_ref());
                    let above = marked_above(&scratch.seen.marks, value);
                    Guess { value, above }
                })
            })
            .collect()
    }
}

impl Table {
    /// Records the value of `heap`, the next, from its guess when the
    /// heaps below `bound` were known (values classed by `mask`): the
    /// guess, unless an option with a heap from `bound` on has it; then
    /// the guess is carried on. Without a guess, or with one made under
    /// another mask, the value is worked out anew.
    fn settle(
        &mut self,
        moves: &Moves,
        (heap, bound): (usize, usize),
        (mask, guess): (u64, Option<Guess>),
    ) {
        debug_assert_eq!(heap, self.values.len());
        if heap.is_power_of_two() && heap >= 64 {
            self.known.choose_mask();
        }
        let (known, scratch) = (&self.known, &mut self.scratch);
        let value = match guess {
            Some(Guess { value, .. }) if !moves.reaches_beyond(known, heap, bound, value) => {
                Some(value)
            }
            Some(Guess { value, above }) if mask == known.rare.mask => {
                moves.resume(known, scratch, (heap, bound), (value, above))
            }
            _ => None,
        };
        let value = value.unwrap_or_else(|| moves.guess(known, scratch, heap, None));
        self.known.push(value);
        self.values.push(value);
    }
}

/// Waits for the next message, first by asking again and again for a
/// while ([`PATIENCE`]), and only then by sleeping.
fn soon<T>(from: &Receiver<T>) -> Option<T> {
    match ask_until(from, Instant::now() + PATIENCE) {
        Ok(message) => Some(message),
        Err(TryRecvError::Empty) => from.recv().ok(),
        Err(TryRecvError::Disconnected) => None,
    }
}

/// The next message, asked for again and again until `until` (at least
/// once): first in a tight loop, then giving the core to any other thread
/// that wants it between two asks. A thread that sleeps instead loses its
/// core, and on a virtual machine the core may go to another machine for
/// longer than a batch takes: waking it again costs more than the wait.
fn ask_until<T>(from: &Receiver<T>, until: Instant) -> Result<T, TryRecvError> {
    for tries in 0u32.. {
        match from.try_recv() {
            Err(TryRecvError::Empty) => {}
            answer => return answer,
        }
        if tries.is_multiple_of(64) && Instant::now() >= until {
            break;
        }
        match tries < SPINS {
            true => std::hint::spin_loop(),
            false => std::thread::yield_now(),
        }
    }
    Err(TryRecvError::Empty)
}

/// Asks [`ask_until`] makes in a tight loop (some microseconds).
const SPINS: u32 = 256;

/// How long a thread with no batch asks for one before it sleeps: some
/// tens of batches' work.
const PATIENCE: Duration = Duration::from_millis(2);

/// How long the table's thread waits for a batch, with nothing else to
/// do, before it takes the batch back and guesses it itself: some tens of
/// batches' work. A thread that is that late has lost its core for a
/// while (to another program): the table goes on without it, on the
/// threads it has, instead of waiting a time slice of several
/// milliseconds for each of its batches.
const TAKE_BACK: Duration = Duration::from_millis(1);
