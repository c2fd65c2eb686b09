//! A position's options listed and folded: rules run over their bindings,
//! products of coin-turning games, each option's value read where it is
//! known.

use super::rules::{Partial, partial};
use super::tables::take_break_options;
use super::*;

impl<'p> Interpreter<'p> {
    pub(super) fn game_options(
        &self,
        id: GameId,
        args: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let game = self.program.game(id);
        let rules = match &game.moves {
            Moves::Rules(rules) => rules,
            &Moves::Product(a, b) => return self.product_options(id, (a, b), args, options),
            Moves::Alias(terms) => {
                return self.alias_options(id, terms, &game.env(args), options);
            }
            Moves::Code(code) => {
                let too_many = |too_many: TooManyOptions| EvalError::TooManyOptions {
                    limit: too_many.limit,
                    what: ("option", "options"),
                    span: game.span,
                    context: String::new(),
                };
                let Some(n) = args[0].int() else {
                    return Ok(());
                };
                return take_break_options(code, id, n, options).map_err(too_many);
            }
        };
        rule_assignments(
            rules,
            &mut game.env(args),
            options.limit(),
            Spending::EachRule,
            &mut |rule, env| {
                self.go_on(rule.span)?;
                if let Err(error) =
                    self.position(&rule.target, env, &mut |part| options.push_part(part))
                {
                    options.abandon_option();
                    return Err(error);
                }
                options
                    .end_option()
                    .map_err(|too_many| EvalError::TooManyOptions {
                        limit: too_many.limit,
                        what: ("option", "options"),
                        span: rule.span,
                        context: String::new(),
                    })
            },
        )
    }

    /// The options of a head at (x, y) of a product of coin-turning games:
    /// for a move of the first game at x turning the coins A and one of the
    /// second at y turning B, the heads at every (a, b) of (A ∪ {x}) ×
    /// (B ∪ {y}) but (x, y).
    pub(super) fn product_options(
        &self,
        id: GameId,
        (a, b): (GameId, GameId),
        args: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let span = self.program.game(id).span;
        let place = |arg: &Value| {
            arg.int()
                .ok_or_else(|| crate::eval::value::wrong_type("an integer", arg, span))
        };
        let (x, y) = (place(&args[0])?, place(&args[1])?);
        let (rows, columns) = (
            self.turns(a, x, options.limit())?,
            self.turns(b, y, options.limit())?,
        );
        for row in &rows {
            for column in &columns {
                for &p in row.iter().chain([&x]) {
                    for &q in column.iter().chain([&y]) {
                        if (p, q) != (x, y) {
                            let place = smallvec::smallvec![Value::Int(p), Value::Int(q)];
                            options.push_part(Component::Game(id, place));
                        }
                    }
                }
                options
                    .end_option()
                    .map_err(|too_many| EvalError::TooManyOptions {
                        limit: too_many.limit,
                        what: ("option", "options"),
                        span,
                        context: String::new(),
                    })?;
            }
        }
        Ok(())
    }

    /// The coins each move of a coin-turning game turns from its coin at
    /// `n`, besides that coin, in rule order.
    pub(super) fn turns(
        &self,
        id: GameId,
        n: i64,
        limit: usize,
    ) -> Result<Vec<Vec<i64>>, EvalError> {
        let game = self.program.game(id);
        let mut found = Vec::new();
        rule_assignments(
            game.coins.as_deref().unwrap_or_default(),
            &mut game.env(&[Value::Int(n)]),
            limit,
            Spending::EachRule,
            &mut |turn, env| {
                let turned = value(&turn.set, env)?;
                found.push(crate::eval::value::elements(&turned, turn.set.span)?);
                Ok(())
            },
        )?;
        Ok(found)
    }

    /// Lists the options, then folds them.
    pub(super) fn fold_listed(
        &self,
        position: &Component,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let mut options = Options::new(limit);
        self.options(position, &mut options)?;
        // An alias's options are as long as the sum it stands for: each
        // component listed is work (`X(n) = X(n - 1) + *1` lists n² parts).
        if let Component::Game(game, _) = position
            && let Moves::Alias(_) = self.program.game(*game).moves
        {
            let parts: usize = options.iter().map(<[Component]>::len).sum();
            solved.examined(parts as u64);
        }
        fold_listed(self, &options, solved, mex);
        Ok(())
    }

    /// The search's inner loop for rules written in the language: each
    /// option's value is folded as its terms are evaluated, with no list of
    /// options and no allocation for games of up to two parameters; a
    /// rule's last binding is swept along the tables where it can be.
    pub(super) fn fold_rules(
        &self,
        rules: &[Rule],
        slots: usize,
        args: &[Value],
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let mut env = Env {
            args,
            slots,
            values: None,
        };
        let mut count = Count {
            done: 0,
            limit,
            work: 0,
        };
        // The parameters of a position whose compiled rules take it.
        let params = compiled_params(args);
        // The set of a position whose rules compiled to bit operations
        // take it.
        let bits = match args {
            [arg] => crate::eval::value::Bits::of(arg),
            _ => None,
        };
        for rule in rules {
            let budget = Budget::new(limit).with_stop(self.stop);
            if let (Some(nodes), Some(position)) = (&rule.nodes, bits)
                && self.fold_nodes(
                    (nodes, rule.span),
                    position,
                    (&budget, &mut count),
                    solved,
                    mex,
                )?
            {
                if solved.settled() {
                    return Ok(());
                }
                continue;
            }
            if let (Some(compiled), Some(params)) = (&rule.compiled, &params) {
                let rule = (rule, compiled);
                if self.compiled(rule, params, &budget, &mut count, solved, mex)? {
                    continue;
                }
            }
            let env = env.get();
            match &rule.sweep {
                Some(plan) => {
                    let (last, outer) = rule.bindings.split_last().expect("a sweep has a binding");
                    assignments(outer, None, env, &budget, &mut |env| {
                        let sweep = Sweep {
                            rule,
                            plan,
                            binding: last,
                        };
                        self.sweep(&sweep, env, &budget, &mut count, solved, mex)
                    })?;
                }
                None => assignments(
                    &rule.bindings,
                    rule.guard.as_ref(),
                    env,
                    &budget,
                    &mut |env| {
                        // An option of a large board costs its elements:
                        // past the work limit or on Ctrl-C, the rest are
                        // skipped, and the engine stops the search.
                        if solved.exhausted() {
                            return Ok(());
                        }
                        count.add(1, rule.span)?;
                        self.go_on(rule.span)?;
                        self.fold_option(&rule.target, env, solved, mex)
                    },
                )?,
            }
        }
        solved.examined(count.work);
        Ok(())
    }

    /// Folds one option into `mex`; an option with a part not solved yet
    /// is deferred until it is (see [`Solved::defer`]).
    #[inline]
    pub(super) fn fold_option(
        &self,
        target: &[Term],
        env: &[Value],
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let from = solved.noted();
        let (value, known) = self.option_value(target, env, solved)?;
        match known {
            true => mex.add(value),
            false => solved.defer(value, from),
        }
        Ok(())
    }

    /// The value of one option, read from `solved`: the XOR of its parts'
    /// values, and whether every part had one (`solved` notes those that
    /// have none yet as missing; the XOR is then of the others).
    #[inline]
    pub(super) fn option_value(
        &self,
        target: &[Term],
        env: &[Value],
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        let (mut value, mut known) = (0, true);
        for term in target {
            let (part_value, part_known) = self.term_value(term, env, solved)?;
            value ^= part_value;
            known &= part_known;
        }
        Ok((value, known))
    }

    /// The value of one term of an option, as [`Interpreter::option_value`].
    #[inline]
    pub(super) fn term_value(
        &self,
        term: &Term,
        env: &[Value],
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        Ok(partial(match term {
            Term::Heap { size, .. } => Some(heap_size(size, env)?),
            // A heap of a one-parameter game is found by its dense address,
            // without building the position.
            Term::Game { game, args, .. } if args.len() == 1 => {
                let n = match quick(&args[0], env) {
                    Some(n) => n,
                    // A small set or region: its parts found by packed key,
                    // with no value built.
                    None if let Some(bits) = crate::eval::value::quick_bits(&args[0], env) => {
                        return Ok(self.bits_value(*game, bits, solved));
                    }
                    None => match value(&args[0], env)? {
                        Value::Int(n) => n,
                        other => {
                            return self.parts_value(
                                *game,
                                smallvec::smallvec![other],
                                args[0].span,
                                solved,
                            );
                        }
                    },
                };
                let part = || Component::Game(*game, smallvec::smallvec![n.into()]);
                match Address::of(game.0, &[n]) {
                    Some(address) => solved.at(address, part),
                    None => solved.part(self, &part()),
                }
            }
            // So is a position of a game of two to four integers, in its
            // table's volume, plane, row and column.
            Term::Game { game, args, .. }
                if let Some(ints) = quick_ints(args, env)
                    && let Some(address) = Address::of(game.0, &ints) =>
            {
                let part = || {
                    let args = ints.iter().map(|&int| Value::Int(int)).collect();
                    Component::Game(*game, args)
                };
                solved.at(address, part)
            }
            Term::Game { game, args, span } => {
                return self.parts_value(*game, evaluate_args(args, env)?, *span, solved);
            }
            Term::Over(over) => {
                let (mut value, mut known, mut parts) = (0, true, 0);
                self.over_bindings(over, env, &mut |env| {
                    let (part_value, part_known) = self.option_value(&over.terms, env, solved)?;
                    value ^= part_value;
                    known &= part_known;
                    parts += 1;
                    Ok(())
                })?;
                // Each part read is work, as an option is: a sum over a
                // long run in every option is bounded by `--max-work` too.
                solved.examined(parts);
                return Ok((value, known));
            }
            Term::Node { graph, node } => solved.part(self, &Component::Node(*graph, *node)),
            Term::Let { id, .. } => {
                return self.option_value(&self.program.let_value(*id).value, env, solved);
            }
            Term::NodeAt { graph, index, span } => {
                let node = self.node_at(*graph, index, *span, env)?;
                solved.part(self, &Component::Node(*graph, node))
            }
        }))
    }
}

/// Whether `rule` of `game`, at the position of integer arguments `at`,
/// moves to a position of `game` whose parameter `i` is larger by a
/// constant and whose other arguments are no smaller, and does so again
/// from there, forever: the rule has no guard and no `while`, each binding
/// ranges from a constant to an end that does not fall as parameter `i`
/// grows (and is not empty at `at`), and the target holds `game(…)` with
/// argument `i` the parameter plus a positive constant and each other
/// argument its own parameter plus a constant of zero or more.
pub(super) fn rises_forever(rule: &Rule, game: GameId, i: usize, at: &[i64]) -> bool {
    use crate::program::affine::Affine;
    let arity = at.len();
    if arity > 4 || rule.guard.is_some() {
        return false;
    }
    // A form of the parameters alone: no binding (`usize::MAX` is no slot).
    let form = |expr: &Expr| Affine::of(expr, arity, usize::MAX);
    let value = |form: &Affine| {
        (0..arity).fold(i128::from(form.constant), |sum, j| {
            sum + i128::from(form.params[j]) * i128::from(at[j])
        })
    };
    let bindings_hold = rule.bindings.iter().all(|binding| {
        let Domain::Range {
            start,
            end,
            inclusive,
        } = &binding.domain
        else {
            return false;
        };
        let (Some(start), Some(end)) = (form(start), form(end)) else {
            return false;
        };
        let only_i = |form: &Affine| (0..arity).all(|j| form.params[j] == 0 || j == i);
        binding.stop.is_none()
            && start.params == [0; 4]
            && only_i(&end)
            && end.params[i] >= 0
            && match inclusive {
                true => value(&start) <= value(&end),
                false => value(&start) < value(&end),
            }
    });
    bindings_hold
        && rule.target.iter().any(|term| match term {
            Term::Game {
                game: target, args, ..
            } if *target == game && args.len() == arity => {
                args.iter().enumerate().all(|(j, arg)| {
                    form(arg).is_some_and(|form| {
                        let mut own = [0; 4];
                        own[j] = 1;
                        form.params == own && form.constant >= 0 && (j != i || form.constant > 0)
                    })
                })
            }
            _ => false,
        })
}

/// A game's arguments, evaluated in a plain loop: the search's inner loop
/// runs through here for every part of every option.
pub(super) fn evaluate_args(args: &[Expr], env: &[Value]) -> Result<Args, EvalError> {
    let mut values = Args::new();
    for arg in args {
        values.push(value(arg, env)?);
    }
    Ok(values)
}

/// The size of a heap `*size`, which may not be negative.
pub(super) fn heap_size(size: &Expr, env: &[Value]) -> Result<u64, EvalError> {
    let n = eval(size, env)?;
    u64::try_from(n).map_err(|_| EvalError::NegativeHeap {
        size: n,
        span: size.span,
        context: String::new(),
    })
}

/// A rule's environment, made when it is first needed (a compiled rule
/// needs none): the parameters, then a slot for each binding.
pub(super) struct Env<'a> {
    args: &'a [Value],
    slots: usize,
    values: Option<SmallVec<[Value; 8]>>,
}

impl Env<'_> {
    pub fn get(&mut self) -> &mut [Value] {
        self.values.get_or_insert_with(|| {
            let mut values: SmallVec<[Value; 8]> = SmallVec::from_elem(Value::Int(0), self.slots);
            values[..self.args.len()].clone_from_slice(self.args);
            values
        })
    }
}

/// The parameters of a position as compiled rules take them (see
/// [`program::Compiled`]): up to four integers, each below 2^32.
#[inline]
pub(super) fn compiled_params(args: &[Value]) -> Option<[i64; 4]> {
    let mut params = [0; 4];
    if args.len() > 4 {
        return None;
    }
    for (param, arg) in params.iter_mut().zip(args) {
        *param = arg.int().filter(|&int| u32::try_from(int).is_ok())?;
    }
    Some(params)
}

/// The arguments of a game of two to four parameters, if each is an
/// integer evaluated without error.
#[inline]
pub(super) fn quick_ints(args: &[Expr], env: &[Value]) -> Option<SmallVec<[i64; 4]>> {
    if !(2..=4).contains(&args.len()) {
        return None;
    }
    args.iter().map(|arg| quick(arg, env)).collect()
}
