//! The mirror strategy's questions answered (see `engine::mirror`): which
//! involutions of a board keep a region of a game declared `splits up to
//! symmetry`, a region's options whole (one region each, not split into
//! parts), and a whole region's parts. Regions of grids and paths of at
//! most 128 nodes, by packed key.

use super::rules::{Shape, pack, unpack};
use super::*;
use crate::eval::value::Bits;
use crate::values::involutions::Involution;

/// The most assignments a rule's bindings may run over while the options
/// of a whole region are listed: a position with more options is left to
/// the search.
const WHOLE_ASSIGNMENTS: usize = 1 << 16;

impl Interpreter<'_> {
    /// The game, board and nodes of a packed key, where the game is one
    /// of rules declared `splits up to symmetry` and the key a region of a
    /// grid or a path: the positions the mirror strategy may prove.
    fn symmetric_region(&self, whole: Packed) -> Option<(GameId, Shape, Board, u128)> {
        let (game, shape, bits) = unpack(whole);
        let declared = self.program.games.get(game.0 as usize)?;
        let symmetric = declared.splits.is_some_and(|splits| splits.symmetric);
        if !symmetric || !matches!(declared.moves, Moves::Rules(_)) {
            return None;
        }
        let board = match shape {
            Shape::Grid { .. } | Shape::Path(_) => shape.board()?,
            Shape::Cycle(_) | Shape::Set => return None,
        };
        Some((game, shape, board, bits))
    }

    /// See [`Rules::mirrors`]: the involutions by their place in
    /// [`Involution::ALL`].
    pub(super) fn region_mirrors(&self, whole: Packed) -> u8 {
        self.symmetric_region(whole)
            .map_or(0, |(_, _, board, bits)| board.mirrors(bits))
    }

    /// See [`Rules::mirror_closed`].
    pub(super) fn region_mirror_closed(&self, whole: Packed, mirror: u8) -> Packed {
        let (game, shape, bits) = unpack(whole);
        let involution = Involution::ALL.get(mirror as usize);
        let image = shape
            .board()
            .zip(involution)
            .and_then(|(board, &involution)| board.involuted(involution, bits));
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
    ) -> Result<bool, EvalError> {
        let Some((game, shape, board, bits)) = self.symmetric_region(whole) else {
            return Ok(false);
        };
        let Moves::Rules(rules) = &self.program.game(game).moves else {
            return Ok(false);
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
        for rule in compiled {
            let mut option = |option| each(pack(game, shape, option));
            match rule.whole_options(game, position, &mut limit, &mut option) {
                Some(true) => {}
                Some(false) => return Ok(true),
                None => return Ok(false),
            }
        }
        Ok(true)
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
    ) -> Result<bool, EvalError> {
        let region = Region {
            board: board.clone(),
            nodes: Set::from_bits(bits),
        };
        let position = Component::Game(game, smallvec::smallvec![Value::Region(region)]);
        let Some(options) = self.written_options(&position, WHOLE_ASSIGNMENTS)? else {
            return Ok(false);
        };
        for option in &options {
            let [Component::Game(to, args)] = option.as_slice() else {
                return Ok(false);
            };
            let nodes = match args.as_slice() {
                [Value::Region(region)] if *to == game && region.board == board => {
                    region.nodes.bits()
                }
                _ => None,
            };
            let Some(nodes) = nodes else {
                return Ok(false);
            };
            if !each(pack(game, shape, nodes)) {
                break;
            }
        }
        Ok(true)
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
