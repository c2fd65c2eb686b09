//! Boxes: a table's positions solved a hyperplane at a time, in address
//! order, on every thread, and grown to take in the boxes solved before.

use super::*;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// The corner of the box to solve for `corner`: a box is solved whole,
    /// the positions known included, so a table asked row by row
    /// (`grundy W(a, b) for a in 0..=150, b in 0..=150`) would solve a box
    /// for each row. The box takes in the last one solved in the table,
    /// and grows to twice it along each side the new corner passes, so
    /// that the boxes solved add up to a few times the last; the grown box
    /// is used while it is at most four times the one taking both in, and
    /// fits in `room`.
    pub(super) fn grown_corner(&self, corner: Address, room: usize) -> Address {
        let Some(last) = self.boxes.get(&corner.table) else {
            return corner;
        };
        let asked = corner.point();
        let union: [u32; 4] = std::array::from_fn(|i| asked[i].max(last[i]));
        let grown: [u32; 4] = std::array::from_fn(|i| match asked[i] > last[i] {
            true => asked[i].max(last[i].saturating_mul(2).saturating_add(1)),
            false => last[i],
        });
        let fits = |point: [u32; 4], most: usize| box_size(point).is_some_and(|size| size <= most);
        let union_size = box_size(union).unwrap_or(usize::MAX);
        let point = match () {
            _ if fits(grown, room.min(union_size.saturating_mul(4))) => grown,
            _ if fits(union, room) => union,
            _ => asked,
        };
        let [volume, plane, row, col] = point;
        Address {
            table: corner.table,
            volume,
            plane,
            row,
            col,
        }
    }

    /// Solves the box of positions below `position`, a hyperplane at a
    /// time (see `wavefront.rs`), when the rules say it can be (see
    /// [`Rules::box_rules`]) and the state limit has room for all of it
    /// (if not, the search meets the limit itself, where it does).
    pub(super) fn solve_box<R>(&mut self, rules: &R, position: &P) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let Some(corner) = rules.dense(position) else {
            return Ok(());
        };
        if self.dense.get(corner) < LOOPY {
            return Ok(());
        }
        let Some(mut box_rules) = rules.box_rules(position) else {
            return Ok(());
        };
        let room = self.max_states.saturating_sub(self.states());
        let corner = self.grown_corner(corner, room);
        let size = box_size(corner.point());
        if size.is_none_or(|size| size > room) {
            return Ok(());
        }
        let Some(largest) = self.dense.claim_box(corner) else {
            return Ok(());
        };
        self.total_boxed = self.total_boxed.saturating_add(size.unwrap_or(0) as u64);
        let dims = self.dense.grid(corner.table as usize).dims;
        box_rules.set_dims(dims);
        // A thread for every so many positions of the box, each hyperplane
        // split into a few parts a thread (no more than it can be dealt to,
        // see `Hyperplanes::new`), so that one thread kept off its core
        // holds up little.
        let threads = self.threads.min(size.unwrap_or(0) / BOX_PER_THREAD).max(1);
        let parts = match threads {
            1 => 1,
            _ => (threads * PARTS_PER_THREAD).min(wavefront::MOST_PARTS),
        };
        let planes = Hyperplanes::new(box_rules.as_ref(), corner.point(), parts, self.max_states);
        let threads = threads.min(planes.parts());
        // The table, shared with the threads while they solve a hyperplane;
        // the engine's own again (swapped in) while it stores one.
        let table = std::sync::RwLock::new(std::mem::replace(&mut self.dense, Dense::new(0)));
        let dealer = wavefront::Dealer::new(planes.parts());
        let largest = std::sync::atomic::AtomicU64::new(largest);
        let work = std::sync::atomic::AtomicU64::new(0);
        let solve = |part: usize, sum: usize| {
            let dense = table.read().expect("no thread failed");
            let grid = dense.grid(corner.table as usize);
            let done = planes.solve(part, sum, grid, largest.load(Relaxed));
            work.fetch_add(done, Relaxed);
        };
        let solved = std::thread::scope(|scope| {
            let _stop = StopOnDrop(&dealer);
            for _ in 1..threads {
                let (dealer, solve) = (&dealer, &solve);
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    let _guard = dealer.guard();
                    dealer.work(solve);
                });
                // No thread to be had: the threads there are do the work.
                if spawned.is_err() {
                    break;
                }
            }
            let _guard = dealer.guard();
            let mut ordinary = Vec::new();
            for sum in 0..=planes.last() {
                dealer.deal(sum);
                while let Some((part, sum)) = dealer.take() {
                    solve(part, sum);
                    dealer.solved();
                }
                if !dealer.wait_solved() {
                    break;
                }
                let mut dense = table.write().expect("no thread failed");
                std::mem::swap(&mut *dense, &mut self.dense);
                let stored =
                    self.store_hyperplane(rules, (position, corner), (&planes, sum), &mut ordinary);
                let stored = stored.and_then(|most| {
                    largest.fetch_max(most, Relaxed);
                    match self.count_work(work.swap(0, Relaxed)) {
                        true => Err(EngineError::TooMuchWork {
                            limit: self.max_work,
                            examined: self.work,
                            solved: planes.up_to(sum),
                            of: size.and_then(NonZeroUsize::new),
                            expanding: Box::new(position.clone()),
                            forgotten: None,
                            found: None,
                        }),
                        false => Ok(()),
                    }
                });
                // A search that grew the table moved its cells: the rest is
                // left to the search.
                let moved = self.dense.grid(corner.table as usize).dims != dims;
                std::mem::swap(&mut *dense, &mut self.dense);
                drop(dense);
                if stored.is_err() || moved {
                    return stored;
                }
            }
            Ok(())
        });
        self.dense = table.into_inner().expect("no thread failed");
        // Only a box solved whole is taken in by the next (one stopped by a
        // limit would be asked again, and fail again, with every query).
        if solved.is_ok() {
            self.boxes.insert(corner.table, corner.point());
        }
        solved
    }

    /// Stores the values of hyperplane `sum` of the box of `position` (at
    /// `corner`) just solved, and solves the positions it left to the
    /// ordinary way; returns the largest value stored.
    pub(super) fn store_hyperplane<R>(
        &mut self,
        rules: &R,
        (position, corner): (&P, Address),
        (planes, sum): (&Hyperplanes<'_>, usize),
        ordinary: &mut Vec<Address>,
    ) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut largest = 0;
        let mut count = 0;
        planes.results(sum, |settled| {
            count += 1;
            match settled {
                Settled::Value { cell, value } => {
                    self.dense.fill_cell(corner.table, cell, value);
                    largest = largest.max(value);
                }
                Settled::Left([volume, plane, row, col]) => ordinary.push(Address {
                    volume,
                    plane,
                    row,
                    col,
                    ..corner
                }),
            }
        });
        for address in ordinary.drain(..) {
            self.solve_in_box(rules, address, position)?;
            let value = self.dense.get(address);
            largest = largest.max(if value < LOOPY { value } else { 0 });
        }
        self.charge(count as u64);
        self.watch()?;
        Ok(largest)
    }

    /// Solves one position of a box (see [`Engine::solve_box`]): its
    /// options are solved already, so it is folded and stored, with no
    /// search; if one is not after all, or the table has no room for it,
    /// it is searched like any position.
    pub(super) fn solve_in_box<R>(
        &mut self,
        rules: &R,
        address: Address,
        corner: &P,
    ) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let state = self.dense.get(address);
        if state < LOOPY {
            return Ok(());
        }
        if state == UNSOLVED {
            self.watch()?;
            self.fold_place(rules, Place::Address(address))?;
            if self.missing.is_empty() && self.dense.insert(address, self.mex.mex()) {
                return Ok(());
            }
        }
        let part = rules.at_address(address);
        let key = self.intern(rules, &part, corner)?;
        match self.value(key) {
            LOOPY => Err(EngineError::Loopy { cycle: vec![part] }),
            value if value >= EXPANDING => self.solve(rules, key),
            _ => Ok(()),
        }
    }
}

/// The fewest positions of a box worth a thread of their own.
pub(super) const BOX_PER_THREAD: usize = 1 << 12;

/// How many parts of each hyperplane of a box there are per thread.
pub(super) const PARTS_PER_THREAD: usize = 4;

/// Stops the threads solving a box when the engine is done with it, by
/// an error or not.
pub(super) struct StopOnDrop<'d>(&'d wavefront::Dealer);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The positions of the box of corner `point`, if they can be counted.
pub(super) fn box_size(point: [u32; 4]) -> Option<usize> {
    point
        .iter()
        .try_fold(1usize, |size, &side| size.checked_mul(side as usize + 1))
}
