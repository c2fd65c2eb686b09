//! The engine's questions answered: a position's options, its packed key,
//! its address in a dense table.

use super::*;
use crate::values::GraphBoard;
use std::sync::Weak;

/// The most nodes of a region the memo values, in a game that splits,
/// when the method is left to the engine: above, the pruned search.
const SEARCHED_NODES: u64 = 14;

/// The most connected regions a board may have for a game that splits on
/// it to be valued by the memo, when the method is left to the engine: its
/// positions are then at most these, each valued once, while a search
/// asks many of them over and over. A path or a cycle has about n²/2 (a
/// path of 199 nodes, 19,900: Node Kayles on it takes the memo 0.4 s, and
/// the search 1.6 s; on a declared path of 199 nodes, 11 s and more than
/// the default work limit). Grids of 2 × 12 and 3 × 7 have more, as do the
/// boards of the records the search is for.
const FEW_REGIONS: usize = 1 << 16;

/// A board as [`few_regions`] knows it: its kind and size, or a declared
/// graph's address.
type BoardKey = (u8, usize, usize);

/// Whether a board has few regions, and the declared graph it is of: not
/// kept alive, but its room is, so that while the entry lasts no other
/// graph takes its address.
type Few = (bool, Option<Weak<GraphBoard>>);

/// The most boards [`few_regions`] remembers before it forgets them all
/// (a server answers many programs).
const BOARDS_REMEMBERED: usize = 1 << 12;

thread_local! {
    /// Whether each board met has few connected regions.
    static FEW: RefCell<HashMap<BoardKey, Few>> = RefCell::default();
}

/// Whether a board has at most [`FEW_REGIONS`] connected regions.
fn few_regions(board: &Board) -> bool {
    let (key, graph) = match board {
        Board::Grid { rows, cols } => ((0, *rows as usize, *cols as usize), None),
        Board::Path(n) => ((1, *n as usize, 0), None),
        Board::Cycle(n) => ((2, *n as usize, 0), None),
        Board::Graph(graph) => ((3, Arc::as_ptr(graph) as usize, 0), Some(graph)),
        Board::Edges(graph) => ((4, Arc::as_ptr(graph) as usize, 0), Some(graph)),
    };
    FEW.with_borrow_mut(|known| {
        if let Some(&(few, _)) = known.get(&key) {
            return few;
        }
        if known.len() >= BOARDS_REMEMBERED {
            known.clear();
        }
        let few = board.connected_regions(FEW_REGIONS) <= FEW_REGIONS;
        known.insert(key, (few, graph.map(Arc::downgrade)));
        few
    })
}

impl Rules for Interpreter<'_> {
    type Position = Component;
    type Error = EvalError;

    fn options(
        &self,
        position: &Component,
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let listed = match position {
            Component::Heap(n) => {
                (0..*n).try_for_each(|k| push_option(options, [Component::Heap(k)], None))
            }
            Component::Node(graph, node) => self.program.graph(*graph).moves[node.0 as usize]
                .iter()
                .try_for_each(|to| push_option(options, [Component::Node(*graph, *to)], None)),
            Component::Game(game, args) => self.game_options(*game, args, options),
        };
        listed.map_err(|error| {
            error.while_expanding(&self.show(std::slice::from_ref(position)).to_string())
        })
    }

    fn fold_options(
        &self,
        position: &Component,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let folded = match position {
            Component::Game(game, args) => match &self.program.game(*game).moves {
                Moves::Rules(rules) => self.fold_rules(
                    rules,
                    self.program.game(*game).slots,
                    args,
                    solved,
                    mex,
                    limit,
                ),
                Moves::Code(_) | Moves::Alias(_) | Moves::Product(..) => {
                    self.fold_listed(position, solved, mex, limit)
                }
            },
            Component::Heap(_) | Component::Node(..) => {
                self.fold_listed(position, solved, mex, limit)
            }
        };
        folded.map_err(|error| {
            error.while_expanding(&self.show(std::slice::from_ref(position)).to_string())
        })
    }

    fn factors(&self, position: &Component) -> Option<(Component, Component)> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let Moves::Product(a, b) = self.program.game(*game).moves else {
            return None;
        };
        let coin =
            |game: GameId, arg: &Value| Component::Game(game, smallvec::smallvec![arg.clone()]);
        Some((coin(a, &args[0]), coin(b, &args[1])))
    }

    /// A head of a coin-turning game, or of a product of two: a coin.
    fn cancels_in_pairs(&self, position: &Component) -> bool {
        let Component::Game(game, args) = position else {
            return false;
        };
        let game = self.program.game(*game);
        let coin = game.coins.is_some() || matches!(game.moves, Moves::Product(..));
        coin && args.iter().all(|arg| matches!(arg, Value::Int(_)))
    }

    fn runs_off(&self, chain: &[Component]) -> bool {
        self.falling_parameter(chain).is_some()
    }

    fn grows_forever(&self, chain: &[Component]) -> bool {
        self.rising_parameter(chain).is_some()
    }

    /// A position of a game declared `= POSITION`: the sum it stands for,
    /// its aliases expanded (see [`Interpreter::alias_sum`]).
    fn stands_for(
        &self,
        position: &Component,
        limit: usize,
    ) -> Result<Option<Vec<Component>>, EvalError> {
        let Component::Game(id, args) = position else {
            return Ok(None);
        };
        let game = self.program.game(*id);
        let Moves::Alias(terms) = &game.moves else {
            return Ok(None);
        };
        let sum = self.alias_sum(*id, terms, &game.env(args), limit);
        sum.map(Some).map_err(|error| {
            error.while_expanding(&self.show(std::slice::from_ref(position)).to_string())
        })
    }

    /// A region or set of more than [`SEARCHED_NODES`] nodes of a game
    /// that splits: its connected parts are many more than a search
    /// visits. Smaller parts are valued by the memo, which keeps them all;
    /// so is every region of a board of few connected regions (see
    /// [`FEW_REGIONS`]).
    fn search_pays(&self, position: &Component) -> bool {
        let Component::Game(game, args) = position else {
            return false;
        };
        self.weight(position) > SEARCHED_NODES
            && self.program.game(*game).splits.is_some()
            && !matches!(args.first(), Some(Value::Region(region)) if few_regions(&region.board))
    }

    /// The nodes of a position's first argument, a region or a set; the
    /// argument itself, an integer; the length of a list.
    fn weight(&self, position: &Component) -> u64 {
        let Component::Game(_, args) = position else {
            return 0;
        };
        match args.first() {
            Some(Value::Region(region)) => region.nodes.len() as u64,
            Some(Value::Set(set)) => set.len() as u64,
            Some(Value::List(list)) => list.len() as u64,
            Some(Value::Int(n)) => n.unsigned_abs(),
            None => 0,
        }
    }

    fn held_bytes(&self, position: &Component) -> usize {
        let Component::Game(_, args) = position else {
            return 0;
        };
        let spilled = match args.spilled() {
            true => args.capacity() * size_of::<Value>(),
            false => 0,
        };
        spilled + args.iter().map(Value::held_bytes).sum::<usize>()
    }

    /// A packed position's nodes are its key's bits.
    fn packed_weight(&self, key: Packed) -> u64 {
        let (_, _, bits) = unpack(key);
        u64::from(bits.count_ones())
    }

    fn as_heap(&self, position: &Component) -> Option<u64> {
        match position {
            Component::Heap(n) => Some(*n),
            _ => None,
        }
    }

    fn heap(&self, n: u64) -> Component {
        Component::Heap(n)
    }

    /// Positions of games of one to four parameters with non-negative
    /// arguments are addressed by the game and the arguments: the last is
    /// the column, the one before the row, then the plane and the volume
    /// (0 where there is none).
    fn dense(&self, position: &Component) -> Option<Address> {
        let Component::Game(game, args) = position else {
            return None;
        };
        if args.len() > 4 {
            return None;
        }
        let mut ints = [0i64; 4];
        for (int, arg) in ints.iter_mut().zip(args) {
            *int = arg.int()?;
        }
        Address::of(game.0, &ints[..args.len()])
    }

    /// Folds a position of a game of rules from its address: its
    /// parameters are the address's last coordinates, with no position
    /// built.
    fn fold_at(
        &self,
        address: Address,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let game = self.program.games.get(address.table as usize);
        let Some((game, Moves::Rules(rules))) = game.map(|game| (game, &game.moves)) else {
            return self.fold_options(&self.at_address(address), solved, mex, limit);
        };
        let args: SmallVec<[Value; 4]> = self.address_args(address);
        self.fold_rules(rules, game.slots, &args, solved, mex, limit)
            .map_err(|error| {
                error.while_expanding(&self.show(&[self.at_address(address)]).to_string())
            })
    }

    fn box_rules(&self, position: &Component) -> Option<Box<dyn BoxRules>> {
        let Component::Game(game, _) = position else {
            return None;
        };
        let game = self.program.games.get(game.0 as usize)?;
        let (true, Moves::Rules(rules)) = (game.solves_as_box, &game.moves) else {
            return None;
        };
        let rules = rules.iter().map(|rule| rule.compiled.clone());
        let rules = rules.collect::<Option<Vec<_>>>()?;
        Some(Box::new(sweep::CompiledBox::new(rules, game.params.len())))
    }

    /// (A table outlives its game when a redeclaration drops the game: its
    /// positions are then rebuilt, with row 0 read as one parameter, only to
    /// be forgotten.)
    fn at_address(&self, address: Address) -> Component {
        Component::Game(GameId(address.table), self.address_args(address))
    }

    /// A position of a game of one parameter whose argument is a set
    /// inside `0..128`, or a region of a grid, a path or a cycle of at most
    /// 255 rows and columns whose nodes are so: the board's shape and the
    /// game in the first word, the bits in the other two.
    #[inline]
    fn packed(&self, position: &Component) -> Option<Packed> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let [arg] = args.as_slice() else {
            return None;
        };
        let (shape, nodes) = match arg {
            Value::Set(set) => (Shape::Set, set),
            Value::Region(region) => (Shape::of(&region.board)?, &region.nodes),
            Value::Int(_) | Value::List(_) => return None,
        };
        let bits = nodes.bits()?;
        Some(pack(*game, shape, bits))
    }

    fn unpacked(&self, key: Packed) -> Component {
        let (game, shape, bits) = unpack(key);
        let nodes = Set::from_bits(bits);
        let Some(board) = shape.board() else {
            return Component::Game(game, smallvec::smallvec![Value::Set(nodes)]);
        };
        let region = Region { board, nodes };
        Component::Game(game, smallvec::smallvec![Value::Region(region)])
    }

    /// The involutions of a grid, a path or a declared graph that keep a
    /// region of a game declared `splits up to symmetry`, by their places
    /// (see [`Board::involuted_at`](crate::values::Board::involuted_at)).
    fn mirrors(&self, whole: Packed) -> u8 {
        self.region_mirrors(whole)
    }

    fn mirror_closed(&self, whole: Packed, mirror: u8) -> Packed {
        self.region_mirror_closed(whole, mirror)
    }

    fn whole_options(
        &self,
        whole: Packed,
        each: &mut dyn FnMut(Packed) -> bool,
    ) -> Result<Option<u64>, EvalError> {
        self.whole_region_options(whole, each)
    }

    fn whole_parts(&self, whole: Packed, parts: &mut Vec<Component>) -> bool {
        self.whole_region_parts(whole, parts)
    }

    /// A heap of a game with a proven period, or of a game given by a code.
    fn known_grundy(
        &self,
        position: &Component,
        limit: usize,
        max_work: u64,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Grundy>, Unknown> {
        match self.by_period(position) {
            Some(value) => Ok(Some(value)),
            None => self.by_table(position, (limit, max_work), watch),
        }
    }
}

/// What a packed key says of a position besides its bits.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    Grid {
        rows: u32,
        cols: u32,
    },
    Path(u32),
    Cycle(u32),
    Set,
    /// The nodes of a declared graph of at most 128 nodes, or the edges of
    /// one of at most 128 edges, by the board's number (see
    /// [`graphs`](super::graphs)).
    Graph(u16),
}

impl Shape {
    /// The board of this shape; none for a set, or for a graph's number
    /// that no board has.
    pub(super) fn board(self) -> Option<Board> {
        match self {
            Shape::Grid { rows, cols } => Some(Board::Grid { rows, cols }),
            Shape::Path(n) => Some(Board::Path(n)),
            Shape::Cycle(n) => Some(Board::Cycle(n)),
            Shape::Set => None,
            Shape::Graph(number) => super::graphs::board(number),
        }
    }

    /// The shape of a board that packs: no side longer than 255, a graph
    /// of at most 128 nodes, or the edges of a graph of at most 128.
    #[inline]
    pub(super) fn of(board: &Board) -> Option<Shape> {
        let fits = |side: u32| side < 1 << 8;
        match board {
            &Board::Grid { rows, cols } if fits(rows) && fits(cols) => {
                Some(Shape::Grid { rows, cols })
            }
            &Board::Path(n) if fits(n) => Some(Shape::Path(n)),
            &Board::Cycle(n) if fits(n) => Some(Shape::Cycle(n)),
            Board::Graph(graph) if graph.nodes <= 128 => {
                super::graphs::number(graph, false).map(Shape::Graph)
            }
            Board::Edges(graph) if graph.edges.len() <= 128 => {
                super::graphs::number(graph, true).map(Shape::Graph)
            }
            _ => None,
        }
    }
}

/// The packed key of a game's position of one argument (see
/// [`Interpreter::packed`]).
#[inline]
pub(super) fn pack(game: GameId, shape: Shape, bits: u128) -> Packed {
    let (kind, a, b) = match shape {
        Shape::Grid { rows, cols } => (0, rows, cols),
        Shape::Path(n) => (1, n, 0),
        Shape::Cycle(n) => (2, n, 0),
        Shape::Set => (3, 0, 0),
        // A set's kind, told from one by the number (plus one) beside it.
        Shape::Graph(number) => {
            let number = u32::from(number) + 1;
            (3, number & 0xff, number >> 8)
        }
    };
    // The game last, so that the first word of most keys is small (the
    // engine keeps small keys in fewer words).
    let head = kind | u64::from(a) << 2 | u64::from(b) << 10 | u64::from(game.0) << GAME_SHIFT;
    Packed([head, bits as u64, (bits >> 64) as u64])
}

/// What a packed key holds: its game, its shape and its nodes (the
/// inverse of [`pack`]).
pub(super) fn unpack(key: Packed) -> (GameId, Shape, u128) {
    let [head, low, high] = key.0;
    let (a, b) = ((head >> 2) as u32 & 0xff, (head >> 10) as u32 & 0xff);
    let shape = match head & 3 {
        0 => Shape::Grid { rows: a, cols: b },
        1 => Shape::Path(a),
        2 => Shape::Cycle(a),
        _ => match a | b << 8 {
            0 => Shape::Set,
            number => Shape::Graph((number - 1) as u16),
        },
    };
    (
        packed_game(key),
        shape,
        u128::from(low) | u128::from(high) << 64,
    )
}

/// The number of the declared graph a packed key's region is of (see
/// [`graphs`](super::graphs)), if it is of one: a number this process
/// gave the graph, which a table renumbers as it does games.
pub fn packed_graph(key: Packed) -> Option<u16> {
    match unpack(key).1 {
        Shape::Graph(number) => Some(number),
        _ => None,
    }
}

/// The packed key of the same region on the graph numbered `number`:
/// what a key saved under one numbering of the graphs is under another.
pub fn regraphed(key: Packed, number: u16) -> Packed {
    let [head, low, high] = key.0;
    let number = u64::from(number) + 1;
    let head = head & !(0xffff << 2) | (number & 0xff) << 2 | (number >> 8) << 10;
    Packed([head, low, high])
}

/// Whether a packed key's nodes are all nodes of its board (a set's, any
/// below 128): a table's key whose nodes run past its board is no position.
pub fn packed_fits(key: Packed) -> bool {
    let (_, shape, bits) = unpack(key);
    let nodes = match (shape, shape.board()) {
        (Shape::Set, _) => 128,
        (_, Some(board)) => board.size(),
        // A graph's number no board has.
        (_, None) => return false,
    };
    nodes >= 128 || bits >> nodes == 0
}

/// Where a packed key keeps its game: the bits of its first word from
/// this one up (see [`pack`]).
const GAME_SHIFT: u32 = 18;

/// The game of a packed key's position.
pub fn packed_game(key: Packed) -> GameId {
    GameId((key.0[0] >> GAME_SHIFT) as u32)
}

/// The packed key of the same position in another game: what a key saved
/// under one numbering of the games is under another.
pub fn repacked(key: Packed, game: GameId) -> Packed {
    let [head, low, high] = key.0;
    let head = head & ((1 << GAME_SHIFT) - 1) | u64::from(game.0) << GAME_SHIFT;
    Packed([head, low, high])
}

/// The XOR of the values of some parts, and whether every part had one.
pub(super) type Partial = (Grundy, bool);

/// A part's value as a [`Partial`]: one with none yet adds nothing.
#[inline(always)]
pub(super) fn partial(value: Option<Grundy>) -> Partial {
    (value.unwrap_or(0), value.is_some())
}

pub(super) fn push_option(
    options: &mut Options<Component>,
    option: impl IntoIterator<Item = Component>,
    span: Option<SourceSpan>,
) -> Result<(), EvalError> {
    options
        .push(option)
        .map_err(|too_many| EvalError::TooManyOptions {
            limit: too_many.limit,
            what: ("option", "options"),
            span: span.unwrap_or_else(|| SourceSpan::new(0.into(), 0)),
            context: String::new(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(game: &str, board: Board) -> Component {
        let program = crate::lower::lowered(GAME);
        let game = program.games.iter().position(|g| g.name == game);
        let game = GameId(game.expect("the game is declared") as u32);
        Component::Game(game, smallvec::smallvec![Value::Region(board.whole())])
    }

    const GAME: &str = "
game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }
game Whole(s) { move Whole(s - {v}) for v in s }
";

    #[test]
    fn the_memo_values_the_regions_of_a_board_of_few_regions() {
        let program = crate::lower::lowered(GAME);
        let rules = Interpreter::new(&program);
        let pays = |game, board| rules.search_pays(&whole(game, board));
        // Few regions: a path or cycle of up to 256 nodes (n(n - 1) + 1 on
        // a cycle of 256 is 65,281), a ladder of 14 rungs or fewer.
        assert!(!pays("NodeKayles", Board::Path(199)));
        assert!(!pays("NodeKayles", Board::Cycle(256)));
        // A grid of 3 × 6 has 28,992; of 2 × 11, 57,096. Many: a
        // cycle of 257 (65,793), a grid of 2 × 12 (137,876), of 3 × 7 (146,642).
        assert!(!pays("NodeKayles", Board::Grid { rows: 3, cols: 6 }));
        assert!(!pays("NodeKayles", Board::Grid { rows: 2, cols: 11 }));
        assert!(pays("NodeKayles", Board::Cycle(257)));
        assert!(pays("NodeKayles", Board::Grid { rows: 2, cols: 12 }));
        assert!(pays("NodeKayles", Board::Grid { rows: 3, cols: 7 }));
        // Small regions and games that do not split: the memo.
        assert!(!pays("NodeKayles", Board::Grid { rows: 2, cols: 7 }));
        assert!(!pays("Whole", Board::Grid { rows: 4, cols: 4 }));
    }
}
