//! The tables of games given by codes, grown as heaps are asked for, and
//! the periods proven of them: a heap past its period is read, not solved.

use super::*;

impl<'p> Interpreter<'p> {
    /// The value of a heap past the values computed, of a game with a
    /// proven period.
    pub fn by_period(&self, position: &Component) -> Option<Grundy> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let n = u64::try_from(args.first()?.int()?).ok()?;
        if let Some(known) = self.periods?.get(game) {
            return (n >= known.values.len() as u64)
                .then(|| known.period.grundy(&known.values, n))
                .flatten();
        }
        // A code's table that found its period answers past its end.
        let tables = self.tables?.tables.borrow();
        let table = tables.get(game)?;
        table.period.as_ref()?;
        (n >= table.table.values().len() as u64)
            .then(|| table.known(n))
            .flatten()
    }

    /// The value of a heap of a game given by a code, from its table. A
    /// table holds as many heaps as the engine may positions (Grundy's game
    /// to the default 10,000,000 takes about twenty seconds, with progress
    /// shown and Ctrl-C heard); a heap past that is refused: its search
    /// would need as many positions, each with as many options.
    ///
    /// The splits the table examines (each into two or three heaps whose
    /// value it works out) are work, counted against `max_work` as the
    /// table grows (see [`crate::octal::SPLITS_PER_OPTION`]): a table of
    /// `hexadecimal "0.8"` to 5,000 heaps examines some 10^10 splits into
    /// three, one of octal `0.004`, whose splits are seldom rare, about
    /// n²/4 splits into two to n.
    pub(super) fn by_table(
        &self,
        position: &Component,
        (limit, max_work): (usize, u64),
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Grundy>, Unknown> {
        let Component::Game(game, args) = position else {
            return Ok(None);
        };
        let Moves::Code(code) = &self.program.game(*game).moves else {
            return Ok(None);
        };
        let (Some(n), Some(tables)) = (args.first(), self.tables) else {
            return Ok(None);
        };
        let Some(Ok(n)) = n.int().map(usize::try_from) else {
            return Ok(None);
        };
        let threads = tables.threads;
        let mut tables = tables.tables.borrow_mut();
        let table = tables
            .entry(*game)
            .or_insert_with(|| CodeTable::new(code, threads));
        let examined = table.table.examined();
        let start = examined.load(Ordering::Relaxed);
        let (mut work, mut over, mut solved) = (0u64, false, 0);
        let mut counted = |done: usize| {
            work = examined.load(Ordering::Relaxed).saturating_sub(start)
                / crate::octal::SPLITS_PER_OPTION;
            over = work > max_work;
            solved = done;
            !over && watch(done)
        };
        match table.grundy(n, limit, &mut counted) {
            Err(Unknown::Stopped) if over => Err(Unknown::TooMuchWork {
                examined: work,
                solved,
                of: n.saturating_add(1),
            }),
            found => found.map(Some),
        }
    }
}

/// Value tables of the games given by codes, filled as heaps are asked
/// for, and the threads that fill them.
#[derive(Default)]
pub struct Tables {
    tables: RefCell<HashMap<GameId, CodeTable>>,
    /// Threads for each table's long extensions; every core if none.
    threads: Option<usize>,
    /// Set to stop the work under way: read where one position's options
    /// can take long to list or fold (a large board splits anew in each),
    /// between the engine's own looks at its watcher.
    pub(super) stop: Option<Arc<AtomicBool>>,
}

impl Tables {
    /// Forgets every table (their games changed).
    pub fn clear(&mut self) {
        self.tables.get_mut().clear();
    }

    /// Sets (or clears) the flag that stops the work under way.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    /// The flag that stops the work under way, if one was set.
    pub fn stop_flag(&self) -> Option<&AtomicBool> {
        self.stop.as_deref()
    }

    /// Whether the flag that stops the work under way is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
    }

    /// Sets the threads of the tables to come and of those made.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = Some(threads);
        for table in self.tables.get_mut().values_mut() {
            table.table.set_threads(threads);
        }
    }
}

/// A code's table, and the period a theorem proves of it once one does:
/// the table then stops growing, and every heap is answered from it.
pub struct CodeTable {
    table: Table,
    proof: Proof,
    period: Option<Period>,
}

/// The least heaps a table is grown to before its period is looked for.
pub(super) const FIRST_STAGE: usize = 256;

impl CodeTable {
    fn new(code: &TakeBreak, threads: Option<usize>) -> Self {
        let table = match threads {
            Some(threads) => Table::with_threads(code.clone(), threads),
            None => Table::new(code.clone()),
        };
        CodeTable {
            table,
            proof: crate::analysis::proof_for(code),
            period: None,
        }
    }

    /// The value of heap `n`: from the table, or from a proven period. The
    /// table grows in stages, doubling, and after each a period is looked
    /// for if a theorem can prove one; it never grows past `limit` heaps.
    fn grundy(
        &mut self,
        n: usize,
        limit: usize,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Grundy, Unknown> {
        loop {
            if let Some(value) = self.known(n as u64) {
                return Ok(value);
            }
            let stage = match self.proof {
                Proof::None => n,
                Proof::Window { .. } | Proof::OctalTheorem { .. } => {
                    (2 * self.table.values().len()).max(FIRST_STAGE).min(n)
                }
            };
            if stage > limit {
                return Err(Unknown::PastLimit);
            }
            self.table.extend_to(stage, watch)?;
            // A theorem proves a period only past its window: before, the
            // look (which may walk the table once for each candidate) is
            // spared.
            let values = self.table.values();
            let provable = match self.proof {
                Proof::Window { t } | Proof::OctalTheorem { t } => values.len() >= t + 2,
                Proof::None => false,
            };
            self.period = provable
                .then(|| crate::analysis::find(values, self.proof))
                .flatten()
                .filter(|period| period.proven);
        }
    }

    /// A heap's value, if the table or a proven period holds it.
    fn known(&self, n: u64) -> Option<Grundy> {
        let values = self.table.values();
        match usize::try_from(n).ok().and_then(|n| values.get(n)) {
            Some(&value) => Some(value),
            None => self.period.as_ref()?.grundy(values, n),
        }
    }
}

/// Proven periods by game, each with the values it starts from.
pub type Periods = HashMap<GameId, KnownPeriod>;

/// A proven period and the values up to (at least) its first repetition.
#[derive(Debug, Clone)]
pub struct KnownPeriod {
    pub period: Period,
    pub values: Vec<Grundy>,
}

/// The options of a heap of `n` tokens under a take-and-break code: for
/// each k in turn, leaving no heap, then one, then two heaps (a ≤ b), then
/// three (a ≤ b ≤ c).
pub(super) fn take_break_options(
    code: &TakeBreak,
    game: GameId,
    n: i64,
    options: &mut Options<Component>,
) -> Result<(), TooManyOptions> {
    let Ok(n) = usize::try_from(n) else {
        return Ok(());
    };
    let heap = |size: usize| Component::Game(game, smallvec::smallvec![Value::Int(size as i64)]);
    let last = code.largest_removal().map_or(n, |largest| largest.min(n));
    for k in 0..=last {
        let digit = code.digit(k);
        let left = n - k;
        if digit.bits & 1 != 0 && left == 0 {
            options.push([])?;
        }
        if digit.bits & 2 != 0 && left >= 1 {
            options.push([heap(left)])?;
        }
        if digit.bits & 4 != 0 {
            for a in 1..=left / 2 {
                if !(digit.distinct && a == left - a) {
                    options.push([heap(a), heap(left - a)])?;
                }
            }
        }
        if digit.bits & 8 != 0 {
            for a in 1..=left / 3 {
                for b in a..=(left - a) / 2 {
                    let c = left - a - b;
                    if !(digit.distinct && (a == b || b == c)) {
                        options.push([heap(a), heap(b), heap(c)])?;
                    }
                }
            }
        }
    }
    Ok(())
}
