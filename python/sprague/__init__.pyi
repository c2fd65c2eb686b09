import os
from array import array
from typing import Any, Callable, Iterable, Literal, Optional, Union

Source = Union[str, os.PathLike[str]]

class GameError(Exception):
    """An error in a source or a query: the diagnostic `sprague run` prints."""

    message: str
    """The diagnostic's one-line message."""
    code: Optional[str]
    """Its stable code, such as ``sprague::check::unknown_game``."""
    help: Optional[str]
    """What to do about it."""
    file: Optional[str]
    """The source it points into: ``<python N>`` for text given, or a path."""
    line: Optional[int]
    """The line its first label points at, from 1."""
    column: Optional[int]
    """The column (in characters, from 1) its first label points at."""
    report: str
    """The report as ``sprague run`` draws it (also ``str(error)``)."""
    json: Any
    """The report as ``sprague run --json`` writes it."""
    answers: list[Answer]
    """The answers given before the error."""

class Answer(dict[str, Any]):
    """One answer: the fields ``sprague run --json`` prints."""

    text: str
    """The answer as ``sprague run`` prints it."""
    def __init__(self, fields: dict[str, Any], text: str) -> None: ...
    def _repr_svg_(self) -> Optional[str]: ...

class Picture:
    """A move graph (DOT) or a plot (SVG), shown inline in a notebook."""

    content: str
    format: str
    def __init__(self, content: str, format: str) -> None: ...
    def _repr_svg_(self) -> Optional[str]: ...

class Session:
    """The games declared so far and the values found, kept between calls."""

    def __init__(
        self,
        source: Optional[Source] = None,
        *,
        max_states: int = 10_000_000,
        threads: Optional[int] = None,
        progress: Union[bool, Callable[[int], Any], None] = None,
        max_work: int = 1_000_000_000,
        max_search: int = 1_000_000,
        max_rows: int = 1_000_000,
        max_draw: int = 500,
        max_source: int = 8_388_608,
    ) -> None: ...
    def run(self, source: str) -> list[Answer]: ...
    def load(self, path: Source) -> list[Answer]: ...
    def grundy(self, position: str) -> Union[int, Literal["inf"]]: ...
    def wins(self, position: str, *, misere: bool = False) -> Union[bool, Literal["draw"]]: ...
    def best_move(self, position: str, *, misere: bool = False) -> Optional[dict[str, Any]]: ...
    def moves(self, position: str, *, misere: bool = False) -> list[dict[str, Any]]: ...
    def why(self, position: str, *, misere: bool = False) -> Answer: ...
    def period(self, game: str) -> Answer: ...
    def draw(self, position: str) -> Picture: ...
    def plot(self, game: str, to: int) -> Picture: ...
    def values(self, game: str, ns: Union[range, Iterable[int]]) -> Union[array[int], Any]:
        """``array('H')`` (or ``array('Q')``), or a numpy array of unsigned
        integers when numpy is installed."""
    def games(self) -> list[tuple[str, list[str]]]: ...
