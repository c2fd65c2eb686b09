//! Boxes solved a hyperplane at a time, on every thread. A game whose rules
//! step its parameters down (see [`Rules::box_rules`]) has each option of
//! a position below it in the sum of its coordinates, so the positions of
//! one sum (a hyperplane: an anti-diagonal of a two-parameter table) wait
//! only on those of smaller sums. They are solved together, split into
//! parts that the threads take as they come (see [`Dealer`]), each part
//! read from the table as it stood after the hyperplane before and
//! written to slots of its own; the engine stores them before the next.
//!
//! A rule whose options run along one line of the table (`move W(a - k,
//! b) for k in 1..=a`) keeps at each position the set of the line's
//! values: the set at the position one step along the line, with one
//! value more. The sets are kept by position, in the buffer of the
//! hyperplane they belong to, so threads share nothing they write and a
//! line's set is found without a hash, next to its neighbours'.
//!
//! [`Rules::box_rules`]: super::Rules::box_rules

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Condvar, Mutex, RwLock};

use smallvec::SmallVec;

use super::{Grid, Grundy, LOOPY, Mex, UNSOLVED};

/// A game's rules as threads read them to solve its table as a box: each
/// rule a run of options along lines of the table, found from a position's
/// coordinates by arithmetic.
pub trait BoxRules: Send + Sync {
    /// How many parameters the game has.
    fn arity(&self) -> usize;

    /// How many rules.
    fn rules(&self) -> usize;

    /// Where rule `rule` has one line of options: the change in each
    /// coordinate (volume, plane, row, column) from one option to the
    /// next. The position that far from this one has, most often, this
    /// position's line less its first cell.
    fn step(&self, rule: usize) -> Option<[i64; 4]>;

    /// Sets the dimensions of the table, before any line is asked for.
    fn set_dims(&mut self, dims: [usize; 4]);

    /// The options of rule `rule` at the position of coordinates `at`,
    /// whose cell is `cell`: how many there are, with the line of each term
    /// (the cell of the first option and the step to the next) put in
    /// `lines`. `None` if a line leaves the table: the position is then
    /// folded the ordinary way.
    fn lines(
        &self,
        rule: usize,
        at: [u32; 4],
        cell: usize,
        lines: &mut SmallVec<[(usize, isize); 4]>,
    ) -> Option<usize>;
}

/// The most bytes the sets of the hyperplanes kept may take, a few a
/// position of the box and a few megabytes more; past it the lines are
/// read cell by cell.
const SET_BYTES_PER_POSITION: usize = 4;
const SET_BYTES: usize = 1 << 26;

/// The most hyperplanes back a line's set is looked for.
const MAX_DEPTH: usize = 8;

/// The positions of a hyperplane are dealt to its parts in turn, this
/// many (by index) at a time.
const GRANULE: usize = 32;

/// What became of a position of a hyperplane.
pub enum Settled {
    /// Its value, found, to be stored in its cell.
    Value { cell: usize, value: Grundy },
    /// Left to the ordinary way (or solved already): its coordinates.
    Left([u32; 4]),
}

/// One thread's part of one hyperplane: per position dealt to it, in
/// order, per rule, the first cell and length of its line and the set of
/// the line's values in `words` words (a length of 0: no set kept); and
/// the values found, by cell, and the positions left to the ordinary way.
#[derive(Default)]
struct Front {
    sum: Option<usize>,
    words: usize,
    slots: Vec<u64>,
    found: Vec<(usize, Grundy)>,
    ordinary: Vec<[u32; 4]>,
}

/// The words a position takes in a thread's part of a hyperplane: per
/// rule, a line's first cell and length, and its set in `words` words.
fn stride(rules: usize, words: usize) -> usize {
    rules * (2 + words)
}

/// Where a rule's line at a position is, less its first cell, when it is
/// at the position one step along it: how far each coordinate must be
/// from 0 for that position to exist, and how far its index among its
/// hyperplane's and the hyperplane are back.
#[derive(Clone, Copy)]
struct Before {
    need: [u32; 4],
    index: usize,
    back: usize,
}

/// A box being solved, hyperplane by hyperplane.
pub(super) struct Hyperplanes<'r> {
    rules: &'r dyn BoxRules,
    count: usize,
    before: Vec<Option<Before>>,
    /// The corner's coordinates, and the first that is one of the game's.
    corner: [usize; 4],
    first: usize,
    /// How many positions each hyperplane has room for: one per point of
    /// the box's other coordinates.
    points: usize,
    /// How many parts each hyperplane is split into, for the threads to
    /// take (see [`Dealer`]).
    parts: usize,
    /// Per part, its slots in the last hyperplanes, by sum modulo their
    /// count.
    fronts: Vec<Vec<RwLock<Front>>>,
    /// The most options a position may have.
    limit: usize,
    /// The most bytes the sets may take.
    set_bytes: usize,
}

impl<'r> Hyperplanes<'r> {
    /// The box of `corner`, each hyperplane split into `parts` parts, or
    /// as many as it can be dealt to if fewer (one at least).
    pub fn new(rules: &'r dyn BoxRules, corner: [u32; 4], parts: usize, limit: usize) -> Self {
        let corner = corner.map(|at| at as usize);
        let first = 4 - rules.arity();
        let points: usize = corner[first + 1..].iter().map(|&at| at + 1).product();
        let parts = parts.min(points.div_ceil(GRANULE)).max(1);
        let mut planes = Hyperplanes {
            rules,
            count: rules.rules(),
            before: Vec::new(),
            corner,
            first,
            points,
            parts,
            fronts: Vec::new(),
            limit,
            set_bytes: (corner[first..].iter().map(|&at| at + 1))
                .fold(SET_BYTES_PER_POSITION, usize::saturating_mul)
                .saturating_add(SET_BYTES),
        };
        planes.before = (0..rules.rules())
            .map(|rule| {
                let step = rules.step(rule)?;
                let mut need = [0; 4];
                for (need, &change) in need.iter_mut().zip(&step) {
                    *need = u32::try_from(change.checked_neg()?).ok()?;
                }
                let back = need[first..].iter().map(|&need| need as usize).sum();
                let index = planes.index(need.map(|need| need as usize));
                (1..MAX_DEPTH)
                    .contains(&back)
                    .then_some(Before { need, index, back })
            })
            .collect();
        let back = planes
            .before
            .iter()
            .flatten()
            .map(|before| before.back)
            .max();
        let depth = back.unwrap_or(0) + 1;
        planes.fronts = (0..parts)
            .map(|_| (0..depth).map(|_| RwLock::default()).collect())
            .collect();
        planes
    }

    /// How many parts each hyperplane is split into.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The part a position (by its index in its hyperplane) is dealt
    /// to, and its place among that part's.
    #[inline]
    fn dealt(&self, index: usize) -> (usize, usize) {
        let granule = index / GRANULE;
        let place = granule / self.parts * GRANULE + index % GRANULE;
        (granule % self.parts, place)
    }

    /// How many positions of the box lie in hyperplanes 0 to `sum`.
    pub fn up_to(&self, sum: usize) -> usize {
        // ways[s]: the points of the sides taken so far whose sum is s.
        let mut ways = vec![1usize];
        for &side in &self.corner[self.first..] {
            let mut window = 0usize;
            ways = (0..ways.len() + side)
                .map(|s| {
                    window += ways.get(s).copied().unwrap_or(0);
                    if let Some(left) = s.checked_sub(side + 1) {
                        window -= ways[left];
                    }
                    window
                })
                .collect();
        }
        ways.iter().take(sum.saturating_add(1)).sum()
    }

    /// The last hyperplane: the corner's sum.
    pub fn last(&self) -> usize {
        self.corner[self.first..].iter().sum()
    }

    /// Calls `each` with the index and coordinates of every position of
    /// hyperplane `sum` whose index is in `range`.
    fn each_point(
        &self,
        sum: usize,
        range: std::ops::Range<usize>,
        mut each: impl FnMut(usize, [u32; 4]),
    ) {
        let (corner, first) = (self.corner, self.first);
        // The coordinates but the first, as an odometer from range.start.
        let mut at = [0usize; 4];
        let mut rest = range.start;
        for d in (first + 1..4).rev() {
            at[d] = rest % (corner[d] + 1);
            rest /= corner[d] + 1;
        }
        let mut others: usize = at[first + 1..].iter().sum();
        for index in range {
            if let Some(lead) = sum.checked_sub(others)
                && lead <= corner[first]
            {
                at[first] = lead;
                each(index, at.map(|at| at as u32));
            }
            for d in (first + 1..4).rev() {
                if at[d] < corner[d] {
                    at[d] += 1;
                    others += 1;
                    break;
                }
                others -= at[d];
                at[d] = 0;
            }
        }
    }

    /// The index of a position among its hyperplane's.
    fn index(&self, at: [usize; 4]) -> usize {
        (self.first + 1..4).fold(0, |index, d| index * (self.corner[d] + 1) + at[d])
    }

    /// Solves part `part` of hyperplane `sum` of the table `grid` (every
    /// smaller hyperplane solved and stored, no value above `largest`),
    /// for [`Hyperplanes::results`] to give. Returns the work done, counted
    /// as the engine counts it.
    pub fn solve(&self, part: usize, sum: usize, grid: Grid<'_>, largest: Grundy) -> u64 {
        let depth = self.fronts[part].len();
        let mut front = self.fronts[part][sum % depth]
            .write()
            .expect("no thread failed");
        // Room for the sets of every value up to the largest so far: no
        // line reaches a larger one.
        let words = (largest / 64 + 1) as usize;
        let bytes = self.points * stride(self.count, words) * 8 * depth;
        front.words = if bytes <= self.set_bytes { words } else { 0 };
        front.sum = Some(sum);
        let dealt = self.points.div_ceil(GRANULE * self.parts) * GRANULE;
        let stride = stride(self.count, front.words);
        front.slots.resize(dealt * stride, 0);
        front.found.clear();
        front.ordinary.clear();
        // Every part of the hyperplanes behind this one, by how far back,
        // those kept.
        let guards: Vec<Vec<_>> = (1..depth)
            .map(|back| {
                let Some(behind) = sum.checked_sub(back) else {
                    return Vec::new();
                };
                let fronts = self.fronts.iter().map(|fronts| &fronts[behind % depth]);
                let guards: Vec<_> = fronts
                    .map(|front| front.read().expect("no thread failed"))
                    .collect();
                match guards.iter().all(|front| front.sum == Some(behind)) {
                    true => guards,
                    false => Vec::new(),
                }
            })
            .collect();
        let parts: Vec<Vec<Part>> = guards
            .iter()
            .map(|guards| {
                guards
                    .iter()
                    .map(|front| Part {
                        slots: &front.slots,
                        words: front.words,
                    })
                    .collect()
            })
            .collect();
        let mut behind: SmallVec<[&[Part]; MAX_DEPTH]> = SmallVec::new();
        behind.push(&[]);
        behind.extend(parts.iter().map(|parts| parts.as_slice()));
        let mut fold = Fold {
            planes: self,
            grid,
            behind: &behind,
            words: front.words,
            mex: Mex::default(),
            lines: SmallVec::new(),
        };
        let mut work = 0;
        let Front {
            slots,
            found,
            ordinary,
            ..
        } = &mut *front;
        let granules = self.points.div_ceil(GRANULE);
        for (place, granule) in (part..granules).step_by(self.parts).enumerate() {
            let start = granule * GRANULE;
            let end = (start + GRANULE).min(self.points);
            self.each_point(sum, start..end, |index, at| {
                let place = place * GRANULE + index - start;
                let slots = &mut slots[place * stride..(place + 1) * stride];
                match fold.fold(at, index, slots, &mut work) {
                    Some(value) => found.push(value),
                    None => ordinary.push(at),
                }
            });
        }
        work
    }

    /// Calls `each` with what became of each position of hyperplane `sum`
    /// just solved.
    pub fn results(&self, sum: usize, mut each: impl FnMut(Settled)) {
        let depth = self.fronts[0].len();
        for fronts in &self.fronts {
            let front = fronts[sum % depth].read().expect("no thread failed");
            for &(cell, value) in &front.found {
                each(Settled::Value { cell, value });
            }
            for &at in &front.ordinary {
                each(Settled::Left(at));
            }
        }
    }

    /// The index of the cell at `at` in the table.
    fn index_in(&self, grid: Grid<'_>, at: [u32; 4]) -> Option<usize> {
        let args = at.map(i64::from);
        grid.index(&args[self.first..])
    }
}

/// One part's slots of a hyperplane, as another reads them.
struct Part<'a> {
    slots: &'a [u64],
    words: usize,
}

/// One thread's folding of positions of a hyperplane.
struct Fold<'a, 'g> {
    planes: &'a Hyperplanes<'a>,
    grid: Grid<'g>,
    /// Every part of the hyperplanes behind, by how far back (none where
    /// not kept).
    behind: &'a [&'a [Part<'a>]],
    words: usize,
    mex: Mex,
    lines: SmallVec<[(usize, isize); 4]>,
}

impl<'a> Fold<'a, '_> {
    /// The cell and value of the position at `at` (of index `index` in its
    /// hyperplane), its sets written to `slots`; `None` if it is to be
    /// folded the ordinary way, or is solved.
    fn fold(
        &mut self,
        at: [u32; 4],
        index: usize,
        slots: &mut [u64],
        work: &mut u64,
    ) -> Option<(usize, Grundy)> {
        let words = self.words;
        for rule in slots.chunks_mut(2 + words) {
            rule[1] = 0;
        }
        let cells = self.grid.cells;
        let position = self.planes.index_in(self.grid, at)?;
        if cells.get(position) != Some(UNSOLVED) {
            return None;
        }
        let cell = |index: usize| cells.get(index).filter(|&value| value < LOOPY);
        let wide = 64 * words as Grundy;
        self.mex.clear();
        let mut options = 0usize;
        for (rule, slot) in slots.chunks_mut(2 + words).enumerate() {
            self.lines.clear();
            let length = self
                .planes
                .rules
                .lines(rule, at, position, &mut self.lines)?;
            options = options.checked_add(length)?;
            if options > self.planes.limit {
                return None;
            }
            if length == 0 {
                continue;
            }
            let (meta, set) = slot.split_at_mut(2);
            match self.lines.as_slice() {
                &[(start, step)] if words > 0 => {
                    let first = cell(start).filter(|&value| value < wide)?;
                    let kept = self.line_before(rule, at, index, (start, step, length));
                    let mex = self.mex.words_mut(words);
                    match kept {
                        Some(kept) => {
                            // The set kept, with the first cell: into the
                            // slot and the mex in one pass.
                            let kept = kept.iter().chain(std::iter::repeat(&0));
                            for ((set, mex), &kept) in set.iter_mut().zip(mex).zip(kept) {
                                *set = kept;
                                *mex |= kept;
                            }
                            *work += words as u64 + 1;
                        }
                        None => {
                            set.fill(0);
                            for i in 1..length {
                                let index = start.wrapping_add_signed(step * i as isize);
                                let value = cell(index).filter(|&value| value < wide)?;
                                set[(value / 64) as usize] |= 1 << (value % 64);
                            }
                            for (mex, &set) in mex.iter_mut().zip(&*set) {
                                *mex |= set;
                            }
                            *work += length as u64;
                        }
                    }
                    set[(first / 64) as usize] |= 1 << (first % 64);
                    self.mex.add(first);
                    meta[0] = start as u64;
                    meta[1] = length as u64;
                }
                lines => {
                    for i in 0..length as isize {
                        let mut value = 0;
                        for &(start, step) in lines {
                            value ^= cell(start.wrapping_add_signed(step * i))?;
                        }
                        self.mex.add(value);
                    }
                    *work += length as u64;
                }
            }
        }
        Some((position, self.mex.mex()))
    }

    /// The set kept by rule `rule` for the line of `(start, step, length)`
    /// less its first cell, at the position one step along it from the one
    /// at `at` (of index `index` in its hyperplane).
    #[inline]
    fn line_before(
        &self,
        rule: usize,
        at: [u32; 4],
        index: usize,
        (start, step, length): (usize, isize, usize),
    ) -> Option<&'a [u64]> {
        let before = self.planes.before[rule]?;
        if at.iter().zip(&before.need).any(|(at, need)| at < need) {
            return None;
        }
        let (part, place) = self.planes.dealt(index - before.index);
        let &Part { slots, words } = self.behind[before.back].get(part)?;
        let slot = place * stride(self.planes.count, words) + rule * (2 + words);
        let (meta, set) = slots[slot..slot + 2 + words].split_at(2);
        let follows = meta[1] as usize + 1 == length
            && start.checked_add_signed(step) == Some(meta[0] as usize);
        follows.then_some(set)
    }
}

/// The parts of the hyperplane under way, each taken by the first thread
/// to ask: a thread kept off its core (by another program) leaves its
/// parts to the others instead of holding them all up, as a fixed split
/// with a barrier did (two threads ran five times slower than one beside
/// a busy program). A thread with nothing to take spins a little (a
/// hyperplane takes microseconds), then sleeps, leaving its core to the
/// thread it waits on.
pub(super) struct Dealer {
    parts: usize,
    /// The hyperplane under way, plus one, above [`TAKEN_BITS`] bits
    /// counting its parts taken (0 before the first is dealt).
    next: AtomicU64,
    /// How many parts of the hyperplane under way are solved.
    solved: AtomicUsize,
    stopped: AtomicBool,
    /// How many threads sleep, to be woken when the state changes.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// The low bits of [`Dealer::next`], counting parts taken.
const TAKEN_BITS: u32 = 16;

/// The most parts a hyperplane is split into.
pub(super) const MOST_PARTS: usize = 1 << 12;

/// How many times a thread with nothing to do checks before it sleeps.
const SPINS: usize = 1 << 11;

impl Dealer {
    pub fn new(parts: usize) -> Self {
        debug_assert!((1..=MOST_PARTS).contains(&parts));
        Dealer {
            parts,
            next: AtomicU64::new(parts as u64),
            solved: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Deals the parts of hyperplane `sum`, once every part of the one
    /// before is solved.
    pub fn deal(&self, sum: usize) {
        self.solved.store(0, SeqCst);
        self.next.store((sum as u64 + 1) << TAKEN_BITS, SeqCst);
        self.wake_all();
    }

    /// A part of the hyperplane under way not taken yet, and the
    /// hyperplane: taken now.
    pub fn take(&self) -> Option<(usize, usize)> {
        let mut next = self.next.load(SeqCst);
        loop {
            let taken = (next & ((1 << TAKEN_BITS) - 1)) as usize;
            if taken >= self.parts || self.stopped.load(Relaxed) {
                return None;
            }
            match self
                .next
                .compare_exchange_weak(next, next + 1, SeqCst, SeqCst)
            {
                Ok(_) => return Some((taken, (next >> TAKEN_BITS) as usize - 1)),
                Err(now) => next = now,
            }
        }
    }

    /// Notes a part taken solved.
    pub fn solved(&self) {
        if self.solved.fetch_add(1, SeqCst) + 1 == self.parts {
            self.wake_all();
        }
    }

    /// Waits until every part of the hyperplane under way is solved;
    /// `false` if the work was stopped.
    pub fn wait_solved(&self) -> bool {
        self.wait_until(|| self.solved.load(SeqCst) == self.parts);
        !self.stopped.load(SeqCst)
    }

    /// Takes parts as they are dealt, solving each with `solve`, until the
    /// work is stopped.
    pub fn work(&self, mut solve: impl FnMut(usize, usize)) {
        loop {
            while let Some((part, sum)) = self.take() {
                solve(part, sum);
                self.solved();
            }
            let seen = self.next.load(SeqCst);
            if self.stopped.load(SeqCst) {
                return;
            }
            let taken = (seen & ((1 << TAKEN_BITS) - 1)) as usize;
            if taken >= self.parts {
                self.wait_until(|| self.next.load(SeqCst) != seen);
            }
        }
    }

    /// Stops the work: every thread waiting returns, and takes no part.
    pub fn stop(&self) {
        self.stopped.store(true, SeqCst);
        self.wake_all();
    }

    /// Stops the work if the thread is dropping this while it panics.
    pub fn guard(&self) -> impl Drop + '_ {
        struct Guard<'d>(&'d Dealer);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.stop();
                }
            }
        }
        Guard(self)
    }

    /// Spins a while until `ready` (or the work is stopped), then sleeps
    /// until it is.
    fn wait_until(&self, ready: impl Fn() -> bool) {
        let done = || ready() || self.stopped.load(SeqCst);
        for _ in 0..SPINS {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
        let mut guard = self.lock.lock().expect("no thread failed");
        self.sleepers.fetch_add(1, SeqCst);
        while !done() {
            guard = self.wake.wait(guard).expect("no thread failed");
        }
        self.sleepers.fetch_sub(1, SeqCst);
    }

    /// Wakes the threads sleeping, if any: a change of state is stored
    /// (sequentially consistent) before this looks for sleepers, and a
    /// sleeper counts itself before it looks at the state, so one of the
    /// two sees the other.
    fn wake_all(&self) {
        if self.sleepers.load(SeqCst) > 0 {
            drop(self.lock.lock().expect("no thread failed"));
            self.wake.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A thread kept off its core (here: held before it starts) holds up
    /// nothing: the other takes every part of every hyperplane itself,
    /// where a fixed split waited for it at a barrier.
    #[test]
    fn a_thread_held_off_leaves_its_parts_to_the_others() {
        let dealer = Dealer::new(8);
        let (release, held) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let dealer = &dealer;
            scope.spawn(move || {
                let _ = held.recv();
                dealer.work(|_, _| panic!("every part was taken before this thread came"));
            });
            for sum in 0..100 {
                dealer.deal(sum);
                let mut parts = Vec::new();
                while let Some((part, dealt)) = dealer.take() {
                    assert_eq!(dealt, sum);
                    parts.push(part);
                    dealer.solved();
                }
                assert_eq!(parts, (0..8).collect::<Vec<_>>());
                assert!(dealer.wait_solved());
            }
            dealer.stop();
            release.send(()).unwrap();
        });
    }

    /// With threads taking parts as they come, each part of each
    /// hyperplane is solved once, and only while its hyperplane is dealt.
    #[test]
    fn every_part_is_solved_once() {
        let parts = 5;
        let dealer = Dealer::new(parts);
        let counts: Vec<AtomicUsize> = (0..200 * parts).map(|_| AtomicUsize::new(0)).collect();
        let under_way = AtomicUsize::new(usize::MAX);
        let solve = |part: usize, sum: usize| {
            assert_eq!(under_way.load(SeqCst), sum);
            counts[sum * parts + part].fetch_add(1, SeqCst);
        };
        std::thread::scope(|scope| {
            for _ in 0..3 {
                let (dealer, solve) = (&dealer, &solve);
                scope.spawn(move || dealer.work(solve));
            }
            for sum in 0..200 {
                under_way.store(sum, SeqCst);
                dealer.deal(sum);
                while let Some((part, sum)) = dealer.take() {
                    solve(part, sum);
                    dealer.solved();
                }
                assert!(dealer.wait_solved());
            }
            dealer.stop();
        });
        assert!(counts.iter().all(|count| count.load(SeqCst) == 1));
    }
}
