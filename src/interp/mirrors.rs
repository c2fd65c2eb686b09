//! The mirror strategy's questions answered (see `engine::mirror`): which
//! involutions of a board keep a region of a game declared `splits up to
//! symmetry`, a region's options whole (one region each, not split into
//! parts), and a whole region's parts. Regions of grids, paths and
//! declared graphs of at most 128 nodes, by packed key.

use super::rules::{Shape, pack, unpack};
use super::*;
use crate::eval::value::Bits;

/// The most assignments a rule's bindings may run over while the options
/// of a whole region are listed: a position with more options is left to
/// the search.
const WHOLE_ASSIGNMENTS: usize = 1 << 16;

/// The work of an option the interpreter lists, where one listed by bit
/// operations is one: about 3 µs against 0.1 µs, each with the rest of
/// the proof's work for it.
const WRITTEN_WORK: u64 = 32;

impl Interpreter<'_> {
    /// The game, board and nodes of a packed key, where the game is one
    /// of rules declared `splits up to symmetry` and the key a region of a
    /// grid, a path or a declared graph: the positions the mirror strategy
    /// may prove.
    fn symmetric_region(&self, whole: Packed) -> Option<(GameId, Shape, Board, u128)> {
        let (game, shape, bits) = unpack(whole);
        let declared = self.program.games.get(game.0 as usize)?;
        let symmetric = declared.splits.is_some_and(|splits| splits.symmetric);
        // The second player's answers prove a loss only where play ends:
        // every rule must take a node away.
        if !symmetric || !declared.shrinks {
            return None;
        }
        let board = match shape {
            Shape::Grid { .. } | Shape::Path(_) | Shape::Graph(_) => shape.board()?,
            Shape::Cycle(_) | Shape::Set => return None,
        };
        Some((game, shape, board, bits))
    }

    /// See [`Rules::mirrors`]: the involutions by their places (see
    /// [`Board::involuted_at`]).
    pub(super) fn region_mirrors(&self, whole: Packed) -> u8 {
        self.symmetric_region(whole)
            .map_or(0, |(_, _, board, bits)| board.mirrors(bits))
    }

    /// See [`Rules::mirror_closed`].
    pub(super) fn region_mirror_closed(&self, whole: Packed, mirror: u8) -> Packed {
        let (game, shape, bits) = unpack(whole);
        let image = shape
            .board()
            .and_then(|board| board.involuted_at(mirror, bits));
        // No image: the region itself, which the engine takes for a move
        // that is its own image, and so for no proof.
        pack(game, shape, bits & image.unwrap_or(bits))
    }

    /// See [`Rules::whole_options`]: by bit operations where every rule
    /// of the game compiled to them, else by the interpreter.
    pub(super) fn whole_region_options(
        &self,
        whole: Packed,
        each: &mut dyn FnMut(Packed) -> bool,
    ) -> Result<Option<u64>, EvalError> {
        let Some((game, shape, board, bits)) = self.symmetric_region(whole) else {
            return Ok(None);
        };
        let Moves::Rules(rules) = &self.program.game(game).moves else {
            return Ok(None);
        };
        let compiled: Option<Vec<&NodeRule>> =
            rules.iter().map(|rule| rule.nodes.as_ref()).collect();
        let Some(compiled) = compiled else {
            return self.written_whole_options(game, shape, board, bits, each);
        };
        let position = Bits {
            board: Some(&board),
            bits,
        };
        let mut limit = WHOLE_ASSIGNMENTS;
        let mut listed = 0;
        for rule in compiled {
            let mut option = |option| {
                listed += 1;
                each(pack(game, shape, option))
            };
            match rule.whole_options(game, position, &mut limit, &mut option) {
                Some(true) => {}
                Some(false) => break,
                None => return Ok(None),
            }
        }
        Ok(Some(listed))
    }

    /// [`Interpreter::whole_region_options`] by the interpreter: each
    /// option as written must be one region of the same game and board.
    fn written_whole_options(
        &self,
        game: GameId,
        shape: Shape,
        board: Board,
        bits: u128,
        each: &mut dyn FnMut(Packed) -> bool,
    ) -> Result<Option<u64>, EvalError> {
        let region = Region {
            board: board.clone(),
            nodes: Set::from_bits(bits),
        };
        let position = Component::Game(game, smallvec::smallvec![Value::Region(region)]);
        let Some(options) = self.written_options(&position, WHOLE_ASSIGNMENTS)? else {
            return Ok(None);
        };
        let work = (options.len() as u64 + 1) * WRITTEN_WORK;
        for option in &options {
            let [Component::Game(to, args)] = option.as_slice() else {
                return Ok(None);
            };
            let nodes = match args.as_slice() {
                [Value::Region(region)] if *to == game && region.board == board => {
                    region.nodes.bits()
                }
                _ => None,
            };
            let Some(nodes) = nodes else {
                return Ok(None);
            };
            if !each(pack(game, shape, nodes)) {
                break;
            }
        }
        Ok(Some(work))
    }

    /// See [`Rules::whole_parts`]: the parts [`Interpreter::game_parts`]
    /// makes of the region.
    pub(super) fn whole_region_parts(&self, whole: Packed, parts: &mut Vec<Component>) -> bool {
        let Some((game, _, board, bits)) = self.symmetric_region(whole) else {
            return false;
        };
        board.parts(bits, true, |part| {
            parts.push(Component::Game(
                game,
                smallvec::smallvec![Value::Region(part)],
            ))
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{DEFAULT_MAX_STATES, Engine, Method};
    use crate::values::involutions::Involution;

    /// Cram and Node Kayles as examples/ declares them, and a board game of
    /// a user's own whose second rule the interpreter runs (it does not
    /// compile to bit operations): a domino, or a cell with one neighbour.
    /// The strategy is used only where every rule is known to take a node
    /// away, so it claims nothing of the third.
    const GAMES: &str = "
game Cram(s) splits up to symmetry {
  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game NodeKayles(s) splits up to symmetry {
  move NodeKayles(s - closed(s, v)) for v in s
}
game Nibble(s) splits up to symmetry {
  move Nibble(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
  move Nibble(s - {a}) for a in s if len(neighbours(s, a)) == 1
}
";

    fn position(game: usize, rows: u32, cols: u32, bits: u128) -> Component {
        let region = Region {
            board: Board::Grid { rows, cols },
            nodes: Set::from_bits(bits),
        };
        Component::Game(
            GameId(game as u32),
            smallvec::smallvec![Value::Region(region)],
        )
    }

    /// Asks the mirror strategy alone of every part of the regions of a
    /// `rows` × `cols` board that `keep` lets through, in each game of
    /// `GAMES`: every value the strategy claims, for a part or for a
    /// position proved on the way, must be the memo's. Returns the claims
    /// made in each game.
    fn claims_are_the_memos(rows: u32, cols: u32, keep: impl Fn(u128) -> bool) -> Vec<Vec<Packed>> {
        let program = crate::lower::lowered(GAMES);
        let rules = Interpreter::new(&program);
        let mut claims = Vec::new();
        for game in 0..program.games.len() {
            // Searched everywhere, so that every part is left to the
            // strategy, none valued by the memo.
            let mut proofs = Engine::new(DEFAULT_MAX_STATES);
            proofs.set_method(Method::Search);
            let mut memo = Engine::new(DEFAULT_MAX_STATES);
            memo.set_method(Method::Memo);
            for bits in (0..1u128 << (rows * cols)).filter(|&bits| keep(bits)) {
                let parts = rules
                    .parts_of_written(&position(game, rows, cols, bits))
                    .unwrap();
                for part in &parts {
                    proofs.mirror_proves(&rules, part).unwrap();
                }
            }
            let claimed = proofs.snapshot().unwrap().packed;
            for &(key, value) in &claimed {
                let part = rules.unpacked(key);
                let shown = rules.show(std::slice::from_ref(&part)).to_string();
                assert_eq!(value, 0, "{shown}");
                assert_eq!(memo.grundy(&rules, &part).unwrap(), 0, "{shown} claimed 0");
            }
            claims.push(claimed.into_iter().map(|(key, _)| key).collect());
        }
        claims
    }

    /// Whether `claims` hold the whole `rows` × `cols` board of a game.
    fn claims_board(claims: &[Packed], game: usize, rows: u32, cols: u32) -> bool {
        let program = crate::lower::lowered(GAMES);
        let rules = Interpreter::new(&program);
        let whole = rules.packed(&position(game, rows, cols, (1 << (rows * cols)) - 1));
        claims.iter().any(|&key| Some(key) == whole)
    }

    /// The regions of a 4 × 4 board that the half turn keeps. Among the
    /// claims: Cram on the whole board (even × even), and Node Kayles on
    /// the centre 2 × 2 square (each move leaves one cell, its image).
    #[test]
    fn every_mirror_claim_on_the_symmetric_regions_of_four_by_four_is_the_memos() {
        let board = Board::Grid { rows: 4, cols: 4 };
        let half_turn = |bits| board.involuted(Involution::HalfTurn, bits) == Some(bits);
        let claims = claims_are_the_memos(4, 4, half_turn);
        assert!(claims_board(&claims[0], 0, 4, 4), "Cram on 4 × 4");
        assert!(claims_board(&claims[1], 1, 2, 2), "Node Kayles on 2 × 2");
        assert!(!claims[0].is_empty() && !claims[1].is_empty(), "{claims:?}");
        // A rule the interpreter runs is not known to take a node away, so
        // the strategy proves nothing of Nibble (see `NodeRule::shrinks`).
        assert!(claims[2].is_empty(), "{claims:?}");
    }

    /// Every region of a 3 × 4 board, each part asked: the parts a move
    /// leaves need not be central. Node Kayles on 2 × 3 is not 0 (a move
    /// in the middle of a long side takes the cell its image would), and
    /// the strategy must not claim it.
    #[test]
    fn every_mirror_claim_on_the_regions_of_three_by_four_is_the_memos() {
        let claims = claims_are_the_memos(3, 4, |_| true);
        assert!(!claims_board(&claims[1], 1, 2, 3), "Node Kayles on 2 × 3");
        assert!(claims_board(&claims[0], 0, 2, 4), "Cram on 2 × 4");
        assert!(!claims[0].is_empty() && !claims[1].is_empty(), "{claims:?}");
        assert!(claims[2].is_empty(), "{claims:?}");
    }

    /// The options of a whole region by bit operations are those the
    /// interpreter lists, in Cram and Node Kayles, on every region of a
    /// 3 × 3 board.
    #[test]
    fn whole_options_by_bits_are_the_interpreters() {
        let program = crate::lower::lowered(GAMES);
        let rules = Interpreter::new(&program);
        for game in 0..2 {
            for bits in 0..1u128 << 9 {
                let whole = rules.packed(&position(game, 3, 3, bits)).unwrap();
                let (game_id, shape, board, _) = rules.symmetric_region(whole).unwrap();
                let mut by_bits = Vec::new();
                let listed = rules.whole_region_options(whole, &mut |option| {
                    by_bits.push(option);
                    true
                });
                assert_eq!(listed, Ok(Some(by_bits.len() as u64)));
                let mut written = Vec::new();
                let listed =
                    rules.written_whole_options(game_id, shape, board, bits, &mut |option| {
                        written.push(option);
                        true
                    });
                assert!(matches!(listed, Ok(Some(_))));
                by_bits.sort();
                written.sort();
                assert_eq!(by_bits, written, "game {game}, region {bits:b}");
                // One move a node in Node Kayles, one a domino in Cram.
                let dominoes = (0..9)
                    .filter(|&v| bits >> v & 1 == 1)
                    .map(|v| {
                        let right = v % 3 < 2 && bits >> (v + 1) & 1 == 1;
                        let below = v < 6 && bits >> (v + 3) & 1 == 1;
                        usize::from(right) + usize::from(below)
                    })
                    .sum::<usize>();
                let moves = [dominoes, bits.count_ones() as usize][game];
                assert_eq!(by_bits.len(), moves, "game {game}, region {bits:b}");
            }
        }
    }
}
