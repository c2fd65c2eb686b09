//! Games declared `= POSITION`: their options are the sum's, and a chain of
//! aliases that comes back to itself or nests too deep is an error.

use super::rules::push_option;
use super::*;

impl<'p> Interpreter<'p> {
    /// The options of a position of a game declared `= POSITION`: the sum
    /// it stands for, aliases in it expanded (see [`Interpreter::alias_sum`]),
    /// with a move in one of its components. The parts listed, besides the
    /// options, are bounded by the options' limit.
    pub(super) fn alias_options(
        &self,
        id: GameId,
        terms: &[Term],
        env: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let span = self.program.game(id).span;
        let limit = options.limit();
        let sum = self.alias_sum(id, terms, env, limit)?;
        let mut moved = Options::new(limit);
        let mut parts = 0usize;
        for (i, component) in sum.iter().enumerate() {
            moved.clear();
            self.options(component, &mut moved)?;
            for option in moved.iter() {
                parts = parts.saturating_add(sum.len() - 1 + option.len());
                if parts > limit {
                    return Err(EvalError::TooManyOptions {
                        limit,
                        what: ("component in the options", "components in the options"),
                        span,
                        context: String::new(),
                    });
                }
                let rest = sum[..i].iter().chain(&sum[i + 1..]).cloned();
                push_option(options, rest.chain(option.iter().cloned()), Some(span))?;
            }
        }
        Ok(())
    }

    /// The sum a position of an alias `id` stands for, with every alias in
    /// it expanded in turn, depth first, without recursion: an alias met
    /// again inside its own expansion is a cycle, and the expansions and
    /// components are bounded by `limit`, so that `game X(n) = X(n - 1)`
    /// ends with an error, not a stack overflow.
    pub fn alias_sum(
        &self,
        id: GameId,
        terms: &[Term],
        env: &[Value],
        limit: usize,
    ) -> Result<Vec<Component>, EvalError> {
        let mut sum = Vec::new();
        self.position(terms, env, &mut |component| sum.push(component))?;
        sum.reverse();
        // The components still to expand, last first, and the aliases being
        // expanded, each with where its components start in `pending`.
        let mut pending = sum;
        let mut expanding: Vec<(Component, usize)> = Vec::new();
        let mut on_path: std::collections::HashSet<Component, rustc_hash::FxBuildHasher> =
            Default::default();
        let mut expanded = Vec::new();
        let mut steps = 0usize;
        loop {
            while let Some((alias, start)) = expanding.last()
                && pending.len() <= *start
            {
                on_path.remove(alias);
                expanding.pop();
            }
            let Some(component) = pending.pop() else {
                return Ok(expanded);
            };
            let Component::Game(game, args) = &component else {
                expanded.push(component);
                continue;
            };
            let Moves::Alias(inner) = &self.program.game(*game).moves else {
                expanded.push(component);
                continue;
            };
            steps += 1;
            if on_path.contains(&component) {
                return Err(self.alias_cycle(*game, &expanding, &component));
            }
            if steps + expanded.len() > limit || expanding.len() >= MAX_ALIAS_DEPTH {
                let limit = limit.min(MAX_ALIAS_DEPTH);
                return Err(self.alias_too_deep(id, &expanding, limit));
            }
            let env = self.program.game(*game).env(args);
            let start = pending.len();
            self.position(inner, &env, &mut |part| pending.push(part))?;
            pending[start..].reverse();
            on_path.insert(component.clone());
            expanding.push((component, start));
        }
    }

    /// The error for an alias met again inside its own expansion.
    pub(super) fn alias_cycle(
        &self,
        game: GameId,
        expanding: &[(Component, usize)],
        again: &Component,
    ) -> EvalError {
        let from = expanding
            .iter()
            .position(|(alias, _)| alias == again)
            .unwrap_or(0);
        let mut cycle: Vec<String> = expanding[from..]
            .iter()
            .map(|(alias, _)| self.show(std::slice::from_ref(alias)).to_string())
            .collect();
        cycle.push(self.show(std::slice::from_ref(again)).to_string());
        EvalError::AliasCycle {
            game: self.program.game(game).name.clone(),
            cycle: cycle.join(" -> "),
            span: self.program.game(game).span,
        }
    }

    /// The error for an expansion past the limit: its first and deepest
    /// aliases.
    pub(super) fn alias_too_deep(
        &self,
        id: GameId,
        expanding: &[(Component, usize)],
        limit: usize,
    ) -> EvalError {
        let show = |entries: &[(Component, usize)]| {
            entries
                .iter()
                .map(|(alias, _)| self.show(std::slice::from_ref(alias)).to_string())
                .collect::<Vec<_>>()
                .join(" -> ")
        };
        let chain = match expanding.len() {
            0..=6 => show(expanding),
            n => format!(
                "{} -> … -> {}",
                show(&expanding[..3]),
                show(&expanding[n - 3..])
            ),
        };
        let game = match expanding.last() {
            Some((Component::Game(game, _), _)) => *game,
            _ => id,
        };
        EvalError::AliasTooDeep {
            game: self.program.game(game).name.clone(),
            limit,
            chain,
            span: self.program.game(game).span,
        }
    }
}

/// How deeply aliases (`game X(n) = …`) may nest in one expansion: a
/// bound on the memory of the aliases being expanded, far past any
/// written on purpose.
pub(super) const MAX_ALIAS_DEPTH: usize = 1_000_000;
