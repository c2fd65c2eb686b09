//! The questions the engine asks of a game's rules, and the plain fold of
//! listed options every rule may fall back on.

use super::*;

/// The move rules of a family of games, as the engine sees them.
pub trait Rules {
    /// A position of one game; a sum is a slice of these.
    type Position: Clone + Eq + Hash;
    /// What can go wrong while listing options.
    type Error;

    /// Lists the options of `position` into `options`, in rule order; each
    /// option is a sum of components.
    fn options(
        &self,
        position: &Self::Position,
        options: &mut Options<Self::Position>,
    ) -> std::result::Result<(), Self::Error>;

    /// The size of the Nim heap this position is, if it is one. The engine
    /// knows Nim itself: `*n` has value n, its longest play is n moves, and
    /// its options are `*0 … *(n-1)`, so no heap is ever searched.
    fn as_heap(&self, _position: &Self::Position) -> Option<u64> {
        None
    }

    /// The Nim heap of size `n` as a position of these rules.
    fn heap(&self, n: u64) -> Self::Position;

    /// A dense address for positions that have one (a game of one or two
    /// parameters, say): the engine then keeps their values by address,
    /// found by indexing, instead of interning them.
    fn dense(&self, _position: &Self::Position) -> Option<Address> {
        None
    }

    /// The rules of a position's game as threads read them, where its
    /// table can be solved as a box: the positions whose coordinates are
    /// each at most the position's are all reached from it, and each has
    /// its options below it in every coordinate and in their sum. The
    /// engine then solves them before the position, a hyperplane of one
    /// sum at a time, on every thread (no search).
    fn box_rules(&self, _position: &Self::Position) -> Option<Box<dyn BoxRules>> {
        None
    }

    /// The position at a dense address: the inverse of [`Rules::dense`],
    /// which rules that give addresses must provide.
    fn at_address(&self, _address: Address) -> Self::Position {
        unreachable!("rules without dense addresses are never asked for a position by one")
    }

    /// A packed key for positions that have one (a region of a small
    /// board, say): the engine then keeps their values beside the key in
    /// one table, instead of interning them. Checked after [`Rules::dense`].
    fn packed(&self, _position: &Self::Position) -> Option<Packed> {
        None
    }

    /// The position of a packed key: the inverse of [`Rules::packed`],
    /// which rules that pack positions must provide.
    fn unpacked(&self, _key: Packed) -> Self::Position {
        unreachable!("rules that pack no position are never asked to unpack one")
    }

    /// Whether the value of `position` is better found by pruned search
    /// than by the memo (see [`super::Method`]): a large region of a game
    /// that splits, whose reachable parts are far more than a search
    /// visits.
    fn search_pays(&self, _position: &Self::Position) -> bool {
        false
    }

    /// The sum a position stands for, where its game is declared equal to
    /// one (`game CramBoard(r, c) = Cram(Grid(r, c))`): its options are
    /// the sum's, so its value is the XOR of the sum's parts', each valued
    /// as it would be if asked alone, by the pruned search where that pays.
    /// The sum holds no position that stands for another in turn, and no
    /// more than `limit` parts; `None` for a position with moves of its own.
    fn stands_for(
        &self,
        _position: &Self::Position,
        _limit: usize,
    ) -> std::result::Result<Option<Vec<Self::Position>>, Self::Error> {
        Ok(None)
    }

    /// The involutions of a position's board (the rules' own numbers, as
    /// bits: at most eight) that map the position onto itself and fix none
    /// of its nodes, where its game declares a position's images under
    /// them equal to it: those by which the mirror strategy may prove it a
    /// P-position (see `mirror.rs`). The position is given by its packed
    /// key (see [`Rules::packed`]); none by default.
    fn mirrors(&self, _whole: Packed) -> u8 {
        0
    }

    /// The nodes of a whole position (one region, not split into its
    /// parts, by packed key) whose images under the involution `mirror`
    /// are in it too: what an option is left with once the move's image
    /// is made as well. Asked only of positions of rules that have mirrors.
    fn mirror_closed(&self, whole: Packed, _mirror: u8) -> Packed {
        whole
    }

    /// The options of a whole position, as the rules list them (see
    /// [`Rules::mirror_closed`]), each the packed key of one region of the
    /// same board, passed to `each` until it answers `false`; the work
    /// that took, counted as the search counts options examined. `None`
    /// where the rules cannot list them so: an option that is not one
    /// region of the same game, or too many options.
    fn whole_options(
        &self,
        _whole: Packed,
        _each: &mut dyn FnMut(Packed) -> bool,
    ) -> std::result::Result<Option<u64>, Self::Error> {
        Ok(None)
    }

    /// The parts the engine keeps of a whole position (its connected
    /// parts, each shaped as [`Rules::options`] shapes them), pushed onto
    /// `parts`; `false` where the rules cannot give them.
    fn whole_parts(&self, _whole: Packed, _parts: &mut Vec<Self::Position>) -> bool {
        false
    }

    /// The bytes a position holds behind pointers (a list's elements, a
    /// large set's), for the bounds on memory: counted whole, though a
    /// clone shares them.
    fn held_bytes(&self, _position: &Self::Position) -> usize {
        0
    }

    /// How hard a position looks to value, for the pruned search's move
    /// ordering: the nodes of a region, say. Only the order matters.
    fn weight(&self, _position: &Self::Position) -> u64 {
        0
    }

    /// The weight of the position of a packed key, as [`Rules::weight`]
    /// weighs it: how cheap its value is to find again, for the values
    /// forgotten first when the table is full. Rules whose keys tell it
    /// (a region's nodes are its bits) may read it from the key.
    fn packed_weight(&self, key: Packed) -> u64 {
        self.weight(&self.unpacked(key))
    }

    /// A value known without search, such as one read off a proven period
    /// or a table of its own, kept to `limit` positions and `max_work`
    /// options examined. Long work calls `watch` now and then with how much
    /// is done; if it answers `false`, the work stops.
    fn known_grundy(
        &self,
        _position: &Self::Position,
        _limit: usize,
        _max_work: u64,
        _watch: &mut dyn FnMut(usize) -> bool,
    ) -> std::result::Result<Option<Grundy>, Unknown> {
        Ok(None)
    }

    /// The two positions whose values' nim-product is this position's
    /// value, for a product of coin-turning games (Lenstra's Tartan
    /// theorem): the engine then solves the factors and multiplies, where
    /// it is asked for the position itself, instead of searching its
    /// options (which it still does for a product met inside a search).
    fn factors(&self, _position: &Self::Position) -> Option<(Self::Position, Self::Position)> {
        None
    }

    /// Whether two of `position` in a sum are none, by the rules of its
    /// game: a head of a coin-turning game, where a move that turns a coin
    /// already heads turns it back to tails. A search for the outcome of a
    /// whole sum (`crosscheck`) then searches the board of coins, not
    /// multisets of heads that grow with every move.
    fn cancels_in_pairs(&self, _position: &Self::Position) -> bool {
        false
    }

    /// Whether a chain of positions, each reached from the one before
    /// while solving it (the deepest last), runs off without end: a rule
    /// missing its guard, say, whose positions fall below zero forever.
    /// The search then stops at once instead of filling the state limit.
    fn runs_off(&self, _chain: &[Self::Position]) -> bool {
        false
    }

    /// Whether a chain of positions (as for [`Rules::runs_off`]) is
    /// proven to grow without end: the rules show that from its deepest
    /// position there is always a move further on, so that no search from
    /// it ends. Asked of shorter chains than `runs_off`, as it is a proof,
    /// not a guess.
    fn grows_forever(&self, _chain: &[Self::Position]) -> bool {
        false
    }

    /// Adds each option's value to `mex`, reading the
    /// values of its parts from `solved`, which answers `None` (and notes
    /// the part) for a part not solved yet; such an option is skipped. This
    /// is the search's inner loop: rules that can fold values without
    /// building the options' positions should.
    /// No more than `limit` options are folded.
    fn fold_options(
        &self,
        position: &Self::Position,
        solved: &mut Solved<'_, Self::Position>,
        mex: &mut Mex,
        limit: usize,
    ) -> std::result::Result<(), Self::Error> {
        let mut options = Options::new(limit);
        self.options(position, &mut options)?;
        fold_listed(self, &options, solved, mex);
        Ok(())
    }

    /// [`Rules::fold_options`] for the position at a dense address, which
    /// rules may fold without building the position.
    fn fold_at(
        &self,
        address: Address,
        solved: &mut Solved<'_, Self::Position>,
        mex: &mut Mex,
        limit: usize,
    ) -> std::result::Result<(), Self::Error> {
        self.fold_options(&self.at_address(address), solved, mex, limit)
    }
}

/// Folds options already listed: each option's value is the XOR of its
/// parts'; options with a part not yet solved
/// are skipped.
pub fn fold_listed<R>(
    rules: &R,
    options: &Options<R::Position>,
    solved: &mut Solved<'_, R::Position>,
    mex: &mut Mex,
) where
    R: Rules + ?Sized,
{
    solved.examined(options.len() as u64);
    {
        for option in options.iter() {
            let from = solved.noted();
            let (mut value, mut known) = (0, true);
            for part in option {
                match solved.part(rules, part) {
                    Some(part) => value ^= part,
                    None => known = false,
                }
            }
            match known {
                true => mex.add(value),
                false => solved.defer(value, from),
            }
        }
    }
}
