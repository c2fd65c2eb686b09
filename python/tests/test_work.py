"""Long work: Ctrl-C, threads inside the engine and Python threads around it."""

import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time

import sprague

GRUNDY = 'game Grundy = octal "4!.0"\n'

# A game of rules with many positions: each has every pair of smaller
# rows as an option.
SLOW = "game Slow(n) { move Slow(a) + Slow(b) for a in 0..n, b in 0..n if a + b < n }\n"

CHILD = textwrap.dedent(
    """
    import signal, sys, time
    import sprague
    # A process started in the background (`cmd &` in a script, as a CI
    # runner may be) inherits SIGINT ignored, and Python then installs no
    # handler for it: the test's signal would be lost.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    s = sprague.Session({source!r})
    print("working", flush=True)
    try:
        s.grundy("Cram(Grid(6, 9))")
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    # What was learned is kept, and the session answers on.
    print("after", s.grundy("*1 + *2"), s.grundy("Slow(3)"), flush=True)
    """
)


# A search long enough to be stopped: Cram 6 × 9 takes hours
# (Grundy's game to ten million heaps had ended within the 1.5 s the
# test waits, on a quiet machine).
CRAM = "game Cram(s) splits { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }\n"


def test_ctrl_c_stops_the_engine_and_the_session_answers_after():
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(source=CRAM + SLOW)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "working"
        # Let the engine get well into its work.
        time.sleep(1.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        # A stop never heard fails the test, not hangs it.
        ready, _, _ = select.select([child.stdout], [], [], 60)
        assert ready, "no answer within 60 s of SIGINT"
        line = child.stdout.readline().strip()
        heard = time.monotonic() - sent
        assert line == "interrupted", child.stderr.read()
        # Slow(3) by the mex rule: its options' values are 0, 1 and 2.
        assert child.stdout.readline().split() == ["after", "3", "3"]
        assert child.wait(timeout=60) == 0
        # Not a timing test: a bound far past the second asked for, so that
        # a machine under load does not fail it; the time is printed.
        print(f"KeyboardInterrupt {heard:.2f} s after SIGINT")
        assert heard < 10
    finally:
        child.kill()


def test_threads_give_the_same_values():
    one = sprague.Session(GRUNDY, threads=1).values("Grundy", range(0, 100_000))
    two = sprague.Session(GRUNDY, threads=2).values("Grundy", range(0, 100_000))
    assert list(one) == list(two)


def test_python_threads_share_a_session_and_run_apart():
    shared = sprague.Session(GRUNDY)
    expected = list(sprague.Session(GRUNDY).values("Grundy", range(0, 50_000)))
    results, failures = {}, []

    def work(name, session, top):
        try:
            results[name] = list(session.values("Grundy", range(0, top)))
        except Exception as error:  # reported below, with its thread
            failures.append((name, error))

    threads = [
        threading.Thread(target=work, args=(f"shared {i}", shared, 50_000 - 1000 * i))
        for i in range(3)
    ] + [
        threading.Thread(target=work, args=(f"own {i}", sprague.Session(GRUNDY), 50_000))
        for i in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for name, values in results.items():
        assert values == expected[: len(values)], name
    assert len(results) == 5


def test_the_gil_is_released_while_the_engine_works():
    s = sprague.Session(GRUNDY)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        s.values("Grundy", range(0, 300_000))
    finally:
        done.set()
        ticker.join()
    # Python ran beside the engine (several ticks, whatever the speed).
    assert len(ticks) > 3


def test_progress_is_told_and_may_stop_the_work():
    told = []

    def progress(count):
        told.append(count)
        raise RuntimeError("stop here")

    s = sprague.Session(GRUNDY, progress=progress)
    try:
        s.grundy("Grundy(9999999)")
    except RuntimeError as error:
        assert str(error) == "stop here"
    else:
        raise AssertionError("the progress function's error was not raised")
    assert len(told) == 1 and isinstance(told[0], int)
    assert s.grundy("*3") == 3
