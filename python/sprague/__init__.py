"""sprague: Sprague–Grundy theory for impartial games, for Python.

A :class:`Session` holds the games declared in the ``.game`` language and the
engine's memo, as ``sprague run`` and the REPL do::

    import sprague
    s = sprague.Session('game Kayles = octal "0.77"')
    s.grundy("Kayles(10) + *3")          # 1
    s.values("Kayles", range(0, 10**6))  # array('H', [0, 1, 2, 3, 1, …])

Answers are the objects ``sprague run --json`` prints, as dicts; errors are
raised as :class:`GameError`. The engine works with the GIL released, and
Ctrl-C (KeyboardInterrupt) stops it within a second, keeping what it learned.
"""

from __future__ import annotations

import os
import sys
import warnings
from array import array
from typing import Any, Callable, Iterable, Optional, Union

from . import _sprague
from ._sprague import GameError

__all__ = ["Session", "GameError", "Answer", "Picture"]


class Answer(dict):
    """One answer, with the fields ``sprague run --json`` prints (a dict),
    and its text as ``sprague run`` prints it (``str(answer)``, ``.text``).
    An answer of ``draw`` or ``plot`` shows its picture in a notebook."""

    def __init__(self, fields: dict, text: str):
        super().__init__(fields)
        self.text = text

    def __str__(self) -> str:
        return self.text

    def _repr_svg_(self) -> Optional[str]:
        if "content" not in self:
            return None
        return Picture(self["content"], self["format"])._repr_svg_()


class Picture:
    """A move graph (DOT, drawn as SVG by Graphviz's ``dot`` when it is
    installed) or a plot (SVG), shown inline in a notebook."""

    def __init__(self, content: str, format: str):
        self.content = content
        self.format = format

    def _repr_svg_(self) -> Optional[str]:
        if self.format == "svg":
            return self.content
        if self.format == "dot":
            return _sprague.graphviz_svg(self.content)
        return None

    def __str__(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return f"<sprague.Picture {self.format}, {len(self.content)} characters>"


Source = Union[str, "os.PathLike[str]"]


class Session(_sprague.Session):
    """The games declared so far and the values found, kept between calls.

    ``source`` is the text of a ``.game`` source, or a file, read as
    :meth:`load` reads it: a path (``os.PathLike``), or a string naming a
    file that ends in ``.game``. Its queries are answered and their answers
    dropped. The limits are those of the command line's flags
    (``--max-states`` and the rest); ``threads`` fills a code's table and
    solves a game's table with that many threads (every core unless set).
    ``progress``, a function, is called with the positions solved every
    quarter second once work has run half a second; ``True`` writes them to
    standard error.
    """

    def __new__(
        cls,
        source: Optional[Source] = None,
        *,
        max_states: int = 10_000_000,
        threads: Optional[int] = None,
        progress: Union[bool, Callable[[int], Any], None] = None,
        **limits: int,
    ):
        if progress is True:
            progress = _progress_line
        elif progress is False:
            progress = None
        return super().__new__(
            cls, max_states=max_states, threads=threads, progress=progress, **limits
        )

    def __init__(self, source: Optional[Source] = None, **_options: Any):
        if isinstance(source, os.PathLike) or _names_a_file(source):
            self.load(source)
        elif source is not None:
            self.run(source)

    def run(self, source: str) -> list[Answer]:
        """Declares the source's games and answers its queries in order,
        as ``sprague run`` does; returns the answers. The first error raises
        :class:`GameError`, with the answers before it as ``.answers``."""
        return self._answers(super().run, source)

    def load(self, path: Source) -> list[Answer]:
        """Reads a ``.game`` file (UTF-8) and runs it, as :meth:`run`."""
        with open(path, encoding="utf-8") as file:
            text = file.read()
        return self._answers(super().run, text, os.fspath(path))

    def grundy(self, position: str) -> Union[int, str]:
        """The Grundy value of a position (a sum, as written in the
        language): an int, or ``"inf"`` for a loopy position without one."""
        return self._ask("grundy", position)["value"]

    def wins(self, position: str, *, misere: bool = False) -> Union[bool, str]:
        """Whether the player to move wins; ``"draw"`` when neither can."""
        return self._ask("wins?", position, misere)["value"]

    def best_move(self, position: str, *, misere: bool = False) -> Optional[dict]:
        """The winning move, ``{"from", "to", "result"}``, or ``None``
        when every move loses."""
        answer = self._ask("best_move", position, misere)
        if answer["move"] is None:
            return None
        best = dict(answer["move"], result=answer["result"])
        if "aim" in answer:
            best["aim"] = answer["aim"]
        return best

    def moves(self, position: str, *, misere: bool = False) -> list[dict]:
        """Every move, as ``moves`` lists them: each with ``move``,
        ``result``, ``grundy`` and ``winning``."""
        return self._ask("moves", position, misere)["options"]

    def why(self, position: str, *, misere: bool = False) -> Answer:
        """The proof of a position's value; ``str()`` of it reads as
        ``sprague run`` prints it."""
        return self._ask("why", position, misere)

    def period(self, game: str) -> Answer:
        """The period of a game of one parameter (``period``, ``preperiod``,
        ``saltus``, ``proven``, ``checked_to``)."""
        return self._single(super().period, game)

    def draw(self, position: str) -> Picture:
        """The move graph of a position, shown inline in a notebook."""
        answer = self._ask("draw", position)
        return Picture(answer["content"], answer["format"])

    def plot(self, game: str, to: int) -> Picture:
        """A plot of a game's values from 0 to ``to``, shown inline."""
        answer = self._single(super().plot, game, to)
        return Picture(answer["content"], answer["format"])

    def values(self, game: str, ns: Union[range, Iterable[int]]):
        """The values of a game of one parameter at each n of ``ns`` (a
        range, or any integers), as one compact array: a numpy array of
        unsigned integers when numpy is installed, else ``array('H')``
        (``array('Q')`` when a value passes 65535). No Python object is
        made per value."""
        if isinstance(ns, range) and ns.step == 1:
            data, code = super().values(game, ns.start, max(ns.start, ns.stop))
        else:
            data, code = self._scattered(game, list(ns))
        return _compact(data, code)

    def games(self) -> list[tuple[str, list[str]]]:
        """The games declared, with their parameters' names."""
        return super().games()

    def _scattered(self, game: str, ns: list[int]) -> tuple[bytearray, str]:
        """Values at integers not in one range of step 1: one range over
        them all when it is not much longer than they are, else each alone."""
        if not ns:
            return bytearray(), "H"
        values = super().values
        low, high = min(ns), max(ns)
        if high - low + 1 <= 4 * len(ns):
            table = _compact(*values(game, low, high + 1), numpy=False)
            picked = array(table.typecode, (table[n - low] for n in ns))
        else:
            singles = [_compact(*values(game, n, n + 1), numpy=False) for n in ns]
            code = "Q" if any(single.typecode == "Q" for single in singles) else "H"
            picked = array(code, (single[0] for single in singles))
        return bytearray(picked.tobytes()), picked.typecode

    def _ask(self, kind: str, position: str, misere: bool = False) -> Answer:
        return self._single(super().ask, kind, position, misere)

    def _single(self, ask: Callable, *args: Any) -> Answer:
        answers = self._answers(ask, *args)
        return answers[0]

    @staticmethod
    def _answers(ask: Callable, *args: Any) -> list[Answer]:
        try:
            answers, notes = ask(*args)
        except GameError as error:
            error.answers = [Answer(fields, text) for fields, text in error.answers]
            raise
        for note in notes:
            warnings.warn(note, stacklevel=3)
        return [Answer(fields, text) for fields, text in answers]


def _names_a_file(source: Any) -> bool:
    """Whether a string given as a source is the name of a ``.game`` file."""
    return (
        isinstance(source, str)
        and "\n" not in source
        and source.endswith(".game")
        and os.path.isfile(source)
    )


def _compact(data: bytearray, code: str, numpy: Optional[bool] = None):
    """The values' bytes as numpy's array when numpy is installed (and not
    refused), else as ``array``'s."""
    if numpy is not False:
        try:
            import numpy as np
        except ImportError:
            pass
        else:
            return np.frombuffer(data, dtype=np.uint16 if code == "H" else np.uint64)
    values = array(code)
    values.frombytes(data)
    return values


def _progress_line(solved: int) -> None:
    sys.stderr.write(f"\rsolving: {solved} positions (Ctrl-C stops)")
    sys.stderr.flush()
