//! Positions as the user wrote them: a game that splits keeps its region
//! whole, on its own board, so that what was asked and what each move did
//! can be shown; the search works on the parts (see
//! [`Interpreter::game_parts`]).

use super::*;

/// The sum an alias stands for: as written, and as the search makes it.
pub type AliasSum = (Vec<Component>, Vec<Component>);

impl Interpreter<'_> {
    /// [`Interpreter::position`], but a game that splits is passed on whole.
    pub fn written_position(
        &self,
        terms: &[Term],
        env: &[Value],
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        self.walk(terms, env, true, each)
    }

    /// The options of a position of a game of rules, in the order the
    /// search lists them, each as written; `None` for any other position.
    pub fn written_options(
        &self,
        position: &Component,
        limit: usize,
    ) -> Result<Option<Vec<Vec<Component>>>, EvalError> {
        let Component::Game(id, args) = position else {
            return Ok(None);
        };
        let game = self.program.game(*id);
        let Moves::Rules(rules) = &game.moves else {
            return Ok(None);
        };
        let mut options = Vec::new();
        rule_assignments(
            rules,
            &mut game.env(args),
            limit,
            Spending::EachRule,
            &mut |rule, env| {
                let mut option = Vec::new();
                self.written_position(&rule.target, env, &mut |part| option.push(part))?;
                options.push(option);
                Ok(())
            },
        )?;
        Ok(Some(options))
    }

    /// The parts the search makes of a position as written.
    pub fn parts_of_written(&self, written: &Component) -> Result<Vec<Component>, EvalError> {
        let mut parts = Vec::new();
        match written {
            Component::Game(game, args) => {
                let span = self.program.game(*game).span;
                self.game_parts(*game, args.clone(), span, &mut |part| parts.push(part))?;
            }
            other => parts.push(other.clone()),
        }
        Ok(parts)
    }

    /// The sum a position of an alias stands for, as written (a game in it
    /// that splits kept whole) and as the search makes it (see
    /// [`Interpreter::alias_sum`]); `None` for any other position.
    pub fn alias_written(
        &self,
        position: &Component,
        limit: usize,
    ) -> Result<Option<AliasSum>, EvalError> {
        let Component::Game(id, args) = position else {
            return Ok(None);
        };
        let game = self.program.game(*id);
        let Moves::Alias(terms) = &game.moves else {
            return Ok(None);
        };
        let env = game.env(args);
        let mut written = Vec::new();
        self.written_position(terms, &env, &mut |term| written.push(term))?;
        let sum = self.alias_sum(*id, terms, &env, limit)?;
        Ok(Some((written, sum)))
    }

    /// Whether a position is a game declared `= POSITION`.
    pub fn is_alias(&self, position: &Component) -> bool {
        matches!(position, Component::Game(id, _)
            if matches!(self.program.game(*id).moves, Moves::Alias(_)))
    }

    /// Whether a position as written is a game that splits, on a region.
    pub fn splits_on_region<'c>(
        &self,
        written: &'c Component,
    ) -> Option<(GameId, &'c Region, bool)> {
        let Component::Game(game, args) = written else {
            return None;
        };
        let splits = self.program.game(*game).splits?;
        match args.first() {
            Some(Value::Region(region)) => Some((*game, region, splits.symmetric)),
            _ => None,
        }
    }
}
