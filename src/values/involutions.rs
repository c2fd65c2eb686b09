//! The symmetries of a board that undo themselves (involutions), for the
//! mirror strategy: a region that one of them maps onto itself, fixing
//! none of its nodes, can be answered move for move by each move's image
//! (see `engine::mirror`). Regions of up to 128 nodes, as bits.

use super::Board;
use super::board::{mirror, transpose, upside_down};

/// A symmetry of a rectangle (or of a path) that is its own inverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Involution {
    /// The half turn about the centre; a path's reversal.
    HalfTurn,
    /// The rows in the other order.
    UpsideDown,
    /// Each row reversed.
    Mirror,
    /// The rows as columns, on a square grid.
    Transpose,
    /// The reflection in the other diagonal, on a square grid.
    AntiTranspose,
}

impl Involution {
    pub const ALL: [Involution; 5] = [
        Involution::HalfTurn,
        Involution::UpsideDown,
        Involution::Mirror,
        Involution::Transpose,
        Involution::AntiTranspose,
    ];
}

impl Board {
    /// The image of the nodes `bits` under `involution`, if it is a
    /// symmetry of this board of at most 128 nodes, and not the same map
    /// as one before it in [`Involution::ALL`]: a grid has the first three
    /// (one row, the half turn only), a square grid all five, a path its
    /// reversal; other boards none.
    pub fn involuted(&self, involution: Involution, bits: u128) -> Option<u128> {
        let size = self.size() as u32;
        if size == 0 || size > 128 {
            return None;
        }
        let Board::Grid { rows, cols } = *self else {
            let path = matches!(self, Board::Path(_)) && involution == Involution::HalfTurn;
            return path.then(|| bits.reverse_bits() >> (128 - size));
        };
        let square = rows == cols;
        match involution {
            Involution::HalfTurn => Some(bits.reverse_bits() >> (128 - size)),
            // One row or column: the half turn is every other map there is.
            _ if rows == 1 || cols == 1 => None,
            Involution::UpsideDown => Some(upside_down(bits, rows, cols)),
            Involution::Mirror => Some(mirror(bits, rows, cols)),
            Involution::Transpose if square => Some(transpose(bits, rows, cols)),
            Involution::AntiTranspose if square => {
                Some(transpose(bits, rows, cols).reverse_bits() >> (128 - size))
            }
            Involution::Transpose | Involution::AntiTranspose => None,
        }
    }

    /// The image of the nodes `bits` under the involution at `place`, where
    /// the board has one there: for a grid or a path, `Involution::ALL`'s
    /// (see [`Board::involuted`]); for a declared graph or its edges' board,
    /// the graph's own (see [`Automorphisms`](super::automorphisms)).
    pub fn involuted_at(&self, place: u8, bits: u128) -> Option<u128> {
        match self {
            Board::Graph(graph) | Board::Edges(graph) => graph
                .symmetries(matches!(self, Board::Edges(_)))
                .involuted(usize::from(place), bits),
            _ => Involution::ALL
                .get(usize::from(place))
                .and_then(|&involution| self.involuted(involution, bits)),
        }
    }

    /// The nodes `involution` maps to themselves, where it is one of the
    /// board's symmetries (see [`Board::involuted`]).
    pub fn fixed_by(&self, involution: Involution) -> u128 {
        let size = self.size() as u32;
        let (rows, cols) = match *self {
            Board::Grid { rows, cols } => (rows, cols),
            _ => (1, size),
        };
        let cell = |r: u32, c: u32| 1u128 << (r * cols + c);
        match involution {
            Involution::HalfTurn if size % 2 == 1 => 1 << (size / 2),
            Involution::UpsideDown if rows % 2 == 1 => (0..cols).map(|c| cell(rows / 2, c)).sum(),
            Involution::Mirror if cols % 2 == 1 => (0..rows).map(|r| cell(r, cols / 2)).sum(),
            Involution::Transpose => (0..rows.min(cols)).map(|i| cell(i, i)).sum(),
            Involution::AntiTranspose if rows == cols => {
                (0..rows).map(|i| cell(i, cols - 1 - i)).sum()
            }
            _ => 0,
        }
    }

    /// The involutions of the board that map the nodes `bits` onto
    /// themselves and fix none of them, as bits by their places (see
    /// [`Board::involuted_at`]). A set of odd size has none.
    pub fn mirrors(&self, bits: u128) -> u8 {
        if bits.count_ones() % 2 == 1 {
            return 0;
        }
        if let Board::Graph(graph) | Board::Edges(graph) = self {
            return graph
                .symmetries(matches!(self, Board::Edges(_)))
                .mirrors(bits);
        }
        let mut found = 0;
        for (place, &involution) in Involution::ALL.iter().enumerate() {
            if self.fixed_by(involution) & bits == 0
                && self.involuted(involution, bits) == Some(bits)
            {
                found |= 1 << place;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a cell of a `rows` × `cols` grid goes, one cell at a time.
    fn image_of_cell(involution: Involution, r: u32, c: u32, rows: u32, cols: u32) -> (u32, u32) {
        match involution {
            Involution::HalfTurn => (rows - 1 - r, cols - 1 - c),
            Involution::UpsideDown => (rows - 1 - r, c),
            Involution::Mirror => (r, cols - 1 - c),
            Involution::Transpose => (c, r),
            Involution::AntiTranspose => (cols - 1 - c, rows - 1 - r),
        }
    }

    #[test]
    fn each_involution_moves_cells_as_its_definition_says_and_undoes_itself() {
        for (rows, cols) in [(2, 3), (3, 3), (4, 4), (4, 9), (5, 7), (8, 16), (11, 11)] {
            let board = Board::Grid { rows, cols };
            for involution in Involution::ALL {
                let Some(_) = board.involuted(involution, 0) else {
                    assert!(
                        matches!(
                            involution,
                            Involution::Transpose | Involution::AntiTranspose
                        ) && rows != cols,
                        "{involution:?} on {rows} × {cols}"
                    );
                    continue;
                };
                let mut fixed = 0u128;
                for (r, c) in (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))) {
                    let cell = 1u128 << (r * cols + c);
                    let (ir, ic) = image_of_cell(involution, r, c, rows, cols);
                    let image = 1u128 << (ir * cols + ic);
                    assert_eq!(board.involuted(involution, cell), Some(image));
                    assert_eq!(board.involuted(involution, image), Some(cell));
                    if image == cell {
                        fixed |= cell;
                    }
                }
                assert_eq!(board.fixed_by(involution), fixed, "{involution:?}");
            }
        }
    }

    #[test]
    fn a_region_has_the_mirrors_that_keep_it_and_fix_none_of_its_cells() {
        let board = Board::Grid { rows: 4, cols: 4 };
        // The whole 4 × 4 board: every involution keeps it; the diagonals
        // are fixed by the transposes.
        assert_eq!(board.mirrors(0xffff), 0b00111);
        // Its centre 2 × 2 square: the same.
        let centre = 1 << 5 | 1 << 6 | 1 << 9 | 1 << 10;
        assert_eq!(board.mirrors(centre), 0b00111);
        // Two opposite corners, 0 and 15: the half turn; the transpose
        // keeps them but fixes both; the anti-transpose swaps them.
        assert_eq!(board.mirrors(1 | 1 << 15), 0b10001);
        // Three cells: none.
        assert_eq!(board.mirrors(1 | 1 << 15 | 1 << 5), 0);
        // A 3 × 3 board: the half turn fixes the centre, so only a region
        // without it, and the mirrors fix a middle line.
        let three = Board::Grid { rows: 3, cols: 3 };
        assert_eq!(three.mirrors(0b111_111_111), 0);
        assert_eq!(three.mirrors(0b111_101_111), 0b00001);
        // A path: its reversal, where the middle node (of an odd path)
        // is gone.
        assert_eq!(Board::Path(4).mirrors(0b1111), 1);
        assert_eq!(Board::Path(5).mirrors(0b11011), 1);
        assert_eq!(Board::Path(5).mirrors(0b11001), 0);
        // One row: the half turn alone (its mirror is the same map).
        assert_eq!(Board::Grid { rows: 1, cols: 4 }.mirrors(0b1111), 1);
    }
}
