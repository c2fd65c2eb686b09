"""The package's answers, errors and pictures. Expected values come from the
theory (the mex rule, the XOR rule, symmetry strategies), computed here apart
from the engine, or from the published tables."""

import shutil
import sys
from array import array

import pytest

import sprague

KAYLES = 'game Kayles = octal "0.77"\n'
GRUNDY = 'game Grundy = octal "4!.0"\n'
DAWSON = 'game Dawson = octal "0.07"\n'


def mex(values):
    seen = set(values)
    g = 0
    while g in seen:
        g += 1
    return g


def kayles_by_mex(count):
    """Kayles by its definition: knock down 1 or 2 adjacent pins of a row of
    n, leaving rows a and n - k - a."""
    g = []
    for n in range(count):
        g.append(mex(g[a] ^ g[n - k - a] for k in (1, 2) for a in range(0, n - k + 1)))
    return g


def grundy_by_mex(count):
    """Grundy's game: split a heap into two unequal non-empty heaps."""
    g = []
    for n in range(count):
        g.append(mex(g[a] ^ g[n - a] for a in range(1, (n + 1) // 2) if a != n - a))
    return g


@pytest.fixture
def kayles():
    return sprague.Session(KAYLES)


def test_grundy_is_the_xor_of_the_parts(kayles):
    g = kayles_by_mex(11)
    assert kayles.grundy("Kayles(10) + *3") == g[10] ^ 3
    assert kayles.grundy("Kayles(4) + Kayles(5)") == g[4] ^ g[5]


def test_wins_is_a_nonzero_value(kayles):
    g = kayles_by_mex(8)
    assert kayles.wins("Kayles(4) + Kayles(5)") is (g[4] ^ g[5] != 0)
    assert kayles.wins("*2 + *2") is False
    # Under misère play a lone heap of one is lost by the player to move.
    assert kayles.wins("*1", misere=True) is False


def test_best_move_leaves_value_zero(kayles):
    # *3 + *4 + *5 has value 2; only *3 -> *1 brings it to 0.
    assert kayles.best_move("*3 + *4 + *5") == {
        "from": "*3",
        "to": "*1",
        "result": "*1 + *4 + *5",
    }
    assert kayles.best_move("*2 + *2") is None


def test_moves_are_listed_with_the_values_they_leave(kayles):
    options = kayles.moves("*2 + *1")
    # *2 -> *0 or *1, *1 -> *0: leaving *0 + *1, *1 + *1, *2 + *0.
    assert [option["result"] for option in options] == ["*0 + *1", "*1 + *1", "*2 + *0"]
    assert [option["grundy"] for option in options] == [1, 0, 2]
    assert [option["winning"] for option in options] == [False, True, False]


def test_run_gives_the_fields_of_run_json():
    s = sprague.Session()
    answers = s.run(
        "game Nim(n) { move Nim(k) for k in 0..n }\n"
        "grundy Nim(3) + Nim(4) + Nim(5)\n"
        "best_move Nim(3) + Nim(4) + Nim(5)\n"
        "grundy Nim(n) for n in 5..=6\n"
    )
    # The objects README.md shows for `run --json`, in its field order.
    assert answers[0] == {"query": "grundy", "position": "Nim(3) + Nim(4) + Nim(5)", "value": 2}
    assert list(answers[0]) == ["query", "position", "value"]
    assert answers[1] == {
        "query": "best_move",
        "position": "Nim(3) + Nim(4) + Nim(5)",
        "move": {"from": "Nim(3)", "to": "Nim(1)"},
        "result": "Nim(1) + Nim(4) + Nim(5)",
        "play": "normal",
    }
    assert [answer["bindings"] for answer in answers[2:]] == [{"n": 5}, {"n": 6}]
    assert [answer["value"] for answer in answers[2:]] == [5, 6]
    assert str(answers[0]) == "grundy Nim(3) + Nim(4) + Nim(5) = 2"


def test_a_cell_run_again_redeclares_its_game():
    s = sprague.Session()
    s.run("game S(n) { move S(n - 1) if n >= 1 }")
    assert s.grundy("S(3)") == 1
    with pytest.warns(UserWarning, match="redeclared `S`"):
        s.run("game S(n) { move S(n - k) for k in 1..=2 if k <= n }")
    assert s.grundy("S(3)") == 0


def test_period_of_kayles(kayles):
    # Guy and Smith: Kayles has period 12 from n = 71 on.
    answer = kayles.period("Kayles")
    assert (answer["period"], answer["preperiod"], answer["proven"]) == (12, 71, True)


def test_why_explains_by_the_xor_rule(kayles):
    answer = kayles.why("*3 + *4 + *5")
    assert answer["value"] == 3 ^ 4 ^ 5
    assert answer["proof"]["rule"] == "xor"
    assert "XOR" in str(answer)


def test_load_reads_a_file(tmp_path):
    path = tmp_path / "sub.game"
    path.write_text("game Sub(n) { move Sub(n - k) for k in {1, 2, 3} if k <= n }\ngrundy Sub(10)\n")
    s = sprague.Session(path)
    # S(1, 2, 3) has values n mod 4.
    assert s.grundy("Sub(10)") == 10 % 4
    assert [answer["value"] for answer in s.load(path)] == [10 % 4]
    assert s.games() == [("Sub", ["n"])]
    # A string naming a .game file is read as the file.
    assert sprague.Session(str(path)).grundy("Sub(7)") == 7 % 4


def test_a_board_game():
    s = sprague.Session(
        "game Cram(s) splits up to symmetry {\n"
        "  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n"
        "}\n" + DAWSON
    )
    # A strip of n cells is Dawson's Kayles (remove two adjacent tokens).
    dawson = list(s.values("Dawson", range(0, 13)))
    assert [s.grundy(f"Cram(Grid(1, {n}))") for n in range(1, 13)] == dawson[1:]
    # Even by even: the second player wins by the central symmetry.
    assert s.grundy("Cram(Grid(2, 2))") == 0
    assert s.wins("Cram(Grid(2, 4))") is False
    # A board and its transpose are the same game.
    assert s.grundy("Cram(Grid(3, 2))") == s.grundy("Cram(Grid(2, 3))")
    moves = s.moves("Cram(Grid(2, 2))")
    assert len(moves) == 4 and not any(option["winning"] for option in moves)


def test_values_at_a_million_heaps_are_one_compact_array(kayles):
    values = kayles.values("Kayles", range(0, 10**6))
    assert len(values) == 10**6
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(values, numpy.ndarray):
        assert values.dtype == numpy.uint16
    else:
        assert isinstance(values, array) and values.typecode == "H"
    assert list(values[:200]) == kayles_by_mex(200)
    # Period 12 from 71 on (the octal periodicity theorem), to the end.
    assert all(values[n] == values[n - 12] for n in range(83, 10**6, 997))
    assert values[10**6 - 1] == values[71 + (10**6 - 1 - 71) % 12]


def test_values_of_grundys_game_to_a_million():
    s = sprague.Session(GRUNDY)
    values = s.values("Grundy", range(0, 10**6))
    assert len(values) == 10**6
    assert list(values[:300]) == grundy_by_mex(300)
    # Far out, the mex rule holds for the values given.
    for n in (500_000, 999_999):
        options = {int(values[a]) ^ int(values[n - a]) for a in range(1, (n + 1) // 2)}
        assert values[n] == mex(options)


def test_values_without_numpy_are_an_array(kayles, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)
    values = kayles.values("Kayles", range(0, 100))
    assert isinstance(values, array) and values.typecode == "H"
    assert list(values) == kayles_by_mex(100)


def test_values_at_scattered_integers(kayles):
    g = kayles_by_mex(100)
    assert list(kayles.values("Kayles", range(0, 100, 7))) == g[0:100:7]
    assert list(kayles.values("Kayles", [5, 3, 99, 3])) == [g[5], g[3], g[99], g[3]]
    assert list(kayles.values("Kayles", [2, 10**9])) == [g[2], kayles.grundy("Kayles(1000000000)")]
    assert len(kayles.values("Kayles", [])) == 0


def test_large_values_widen_the_array():
    # A game whose position n is the heap *n has value n.
    s = sprague.Session("game Heap(n) = *n")
    values = s.values("Heap", range(70_000, 70_003))
    assert list(values) == [70_000, 70_001, 70_002]
    assert getattr(values, "typecode", None) in ("Q", None)


def test_a_parse_error_is_a_game_error_with_its_place(kayles):
    with pytest.raises(sprague.GameError) as raised:
        kayles.grundy("Kayles(3")
    error = raised.value
    assert error.code == "sprague::parse::syntax"
    # The end of input, after the 8 characters typed.
    assert (error.line, error.column) == (1, 9)
    assert "found end of input" in error.message
    assert error.help
    assert "Kayles(3" in str(error)


def test_a_check_error_points_into_the_source():
    s = sprague.Session()
    with pytest.raises(sprague.GameError) as raised:
        s.run("game A(n) { move A(n - 1) if n > 0 }\ngrundy A(3)\ngrundy B(1)\ngrundy A(4)\n")
    error = raised.value
    assert error.code == "sprague::check::unknown_game"
    assert (error.line, error.column) == (3, 8)
    assert error.help == "did you mean `A`?"
    assert error.json["code"] == "sprague::check::unknown_game"
    # Nothing was answered: a source is checked whole before it runs.
    assert error.answers == []


def test_an_evaluation_error_keeps_the_answers_before_it():
    s = sprague.Session(max_states=1000)
    with pytest.raises(sprague.GameError) as raised:
        s.run(
            "game S(n) { move S(n - 1) if n >= 1 }\n"
            "grundy S(10)\ngrundy S(100000)\ngrundy S(11)\n"
        )
    assert [answer["value"] for answer in raised.value.answers] == [0]
    assert raised.value.line == 3
    # The session answers on.
    assert s.grundy("S(11)") == 1


def test_values_of_what_is_not_a_game(kayles):
    with pytest.raises(sprague.GameError) as raised:
        kayles.values("Kayles(3)", range(3))
    assert raised.value.code == "sprague::session::not_a_game_name"
    with pytest.raises(sprague.GameError) as raised:
        kayles.values("Nope", range(3))
    assert raised.value.code == "sprague::check::unknown_game"


def test_a_query_typed_as_a_position_is_refused(kayles):
    # Only a position is read: a second query cannot ride along.
    with pytest.raises(sprague.GameError):
        kayles.grundy("*1\ngrundy *2")


def test_a_panic_is_an_exception_and_the_session_lives_on(kayles):
    with pytest.raises(sprague.GameError, match="failed inside"):
        kayles._panic()
    assert kayles.grundy("*1 + *2") == 3


def test_deep_nesting_is_an_error_not_a_crash(kayles):
    with pytest.raises(sprague.GameError) as raised:
        kayles.grundy("(" * 100_000 + "*1" + ")" * 100_000)
    assert raised.value.code == "sprague::parse::too_deep"
    assert kayles.grundy("*1") == 1


def test_a_plot_is_svg_for_the_notebook(kayles):
    picture = kayles.plot("Kayles", 30)
    assert picture.format == "svg"
    assert picture._repr_svg_().lstrip().startswith("<svg")
    answer = kayles.run("plot Kayles for n in 0..=10")[0]
    assert answer["points"] == 11
    assert "<svg" in answer._repr_svg_()
    # An answer that is not a picture shows as itself.
    assert kayles.run("grundy *1")[0]._repr_svg_() is None


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot draws move graphs")
def test_a_move_graph_is_drawn_for_the_notebook(kayles):
    picture = kayles.draw("Kayles(3)")
    assert picture.format == "dot"
    assert "digraph" in picture.content
    svg = picture._repr_svg_()
    assert "<svg" in svg
    # Kayles(3) reaches rows of 2, 1 and 0 pins, and 1 + 1.
    assert "Kayles(2)" in svg and "Kayles(1) + Kayles(1)" in svg
