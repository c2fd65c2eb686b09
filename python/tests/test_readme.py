"""README.md's Python section runs as written, and says what it gives."""

import ast
import re
import sys
import types
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_section():
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the Python section has one Python example"
    return blocks[0]


def pyplot(monkeypatch):
    """matplotlib's pyplot drawing off screen; a stand-in that records what
    is plotted where matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        plotted = []
        stand_in = types.ModuleType("matplotlib.pyplot")
        stand_in.plot = lambda *args, **kwargs: plotted.append(args)
        stand_in.plotted = plotted
        package = types.ModuleType("matplotlib")
        package.pyplot = stand_in
        monkeypatch.setitem(sys.modules, "matplotlib", package)
        monkeypatch.setitem(sys.modules, "matplotlib.pyplot", stand_in)
        return stand_in
    matplotlib.use("Agg")
    import matplotlib.pyplot

    matplotlib.pyplot.close("all")
    return matplotlib.pyplot


def test_the_python_section_runs_and_its_comments_hold(monkeypatch):
    code = python_section()
    plt = pyplot(monkeypatch)
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)
    values = namespace["values"]
    assert len(values) == 10**6
    # Kayles: period 12 from n = 71 on, as the comment says.
    assert all(values[n] == values[n - 12] for n in range(83, 10**6, 1009))
    plotted = getattr(plt, "plotted", None)
    if plotted is None:
        lines = plt.gca().get_lines()
        assert len(lines) == 1 and len(lines[0].get_ydata()) == 200
    else:
        assert len(plotted) == 1 and len(plotted[0][0]) == 200
    # Each line `EXPRESSION  # VALUE` gives that value.
    checked = 0
    for line in code.splitlines():
        expression, _, comment = line.partition("#")
        try:
            expected = ast.literal_eval(comment.strip())
            ast.parse(expression.strip(), mode="eval")
        except (SyntaxError, ValueError):
            continue
        assert eval(expression, namespace) == expected, line
        checked += 1
    assert checked >= 3
