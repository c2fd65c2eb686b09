//! Parameters that only fall, or only rise, along a chain of positions: how
//! a search too deep or growing forever is explained.

use super::options::rises_forever;
use super::*;

impl<'p> Interpreter<'p> {
    /// The game and parameter that fall without end along a chain of
    /// positions: every position of one game, that parameter negative in
    /// each and smaller in each than in the one before.
    pub fn falling_parameter(&self, chain: &[Component]) -> Option<(GameId, usize)> {
        let Some(Component::Game(game, first)) = chain.first() else {
            return None;
        };
        let mut args = Vec::with_capacity(chain.len());
        for position in chain {
            match position {
                Component::Game(other, position_args)
                    if other == game && position_args.len() == first.len() =>
                {
                    args.push(position_args)
                }
                _ => return None,
            }
        }
        let int = |position: &Args, i: usize| position[i].int().unwrap_or(0);
        let falls = |i: usize| {
            args.iter().all(|position| int(position, i) < 0)
                && args
                    .windows(2)
                    .all(|pair| int(pair[1], i) < int(pair[0], i))
        };
        (0..first.len()).find(|&i| falls(i)).map(|i| (*game, i))
    }

    /// The game and parameter that grow without end along a chain of
    /// positions: every position of one game, the parameter larger in each
    /// than in the one before, and a rule of the game proven to move from
    /// the deepest position to one with that parameter larger, and so on
    /// forever (see [`rises_forever`]). A game that is finite is never
    /// named: the proof shows a play that never ends.
    pub fn rising_parameter(&self, chain: &[Component]) -> Option<(GameId, usize)> {
        let (Some(Component::Game(game, first)), Some(Component::Game(_, deepest))) =
            (chain.first(), chain.last())
        else {
            return None;
        };
        let Moves::Rules(rules) = &self.program.game(*game).moves else {
            return None;
        };
        let arity = first.len();
        let mut ints = Vec::with_capacity(chain.len());
        for position in chain {
            match position {
                Component::Game(other, args) if other == game && args.len() == arity => {
                    ints.push(args.iter().map(Value::int).collect::<Option<Vec<i64>>>()?)
                }
                _ => return None,
            }
        }
        let rises = |i: usize| ints.windows(2).all(|pair| pair[1][i] > pair[0][i]);
        let at: Vec<i64> = deepest.iter().map(Value::int).collect::<Option<_>>()?;
        (0..arity)
            .find(|&i| rises(i) && rules.iter().any(|rule| rises_forever(rule, *game, i, &at)))
            .map(|i| (*game, i))
    }

    /// Where a game's rules give parameter `i` of the game itself a new
    /// value: the first such argument, to point at for a missing guard.
    pub fn argument_moving(&self, game: GameId, i: usize) -> Option<SourceSpan> {
        let Moves::Rules(rules) = &self.program.game(game).moves else {
            return None;
        };
        rules
            .iter()
            .flat_map(|rule| &rule.target)
            .find_map(|term| match term {
                Term::Game {
                    game: target, args, ..
                } if *target == game => args
                    .get(i)
                    .filter(|arg| !matches!(arg.kind, ExprKind::Slot(slot) if slot == i))
                    .map(|arg| arg.span),
                _ => None,
            })
    }
}
