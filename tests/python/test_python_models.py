"""The task-based Python models from outside: `parlab run` with processes and Dask leaves no
process behind - after a run, after Ctrl-C, after a worker is killed - and a missing Dask is
"unavailable", not an error. Every process parlab starts inherits a tag in its environment, so
the process table is scanned for the tag (a worker orphaned by parlab's exit would keep it)."""
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from test_cli_run import only_run_dir

STARTED = []  # parlab processes the current test started
MODELS = ["py-thread-pool", "py-processes", "py-dask-delayed", "py-dask-distributed"]


def tagged_processes(tag):
    """{pid: cmdline} of live processes whose environment holds PARLAB_TEST_TAG=tag."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours
            continue
        if f"PARLAB_TEST_TAG={tag}".encode() in env and state != "Z":
            found[int(name)] = cmd
    return found


def assert_none_left(tag, timeout=15.0):
    """Every tagged process ends within `timeout` (multiprocessing's resource tracker ends when
    parlab's end closes its pipe, a moment after parlab itself)."""
    deadline = time.monotonic() + timeout
    while (left := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes left behind: {left}"


def workers_of(tag, parent):
    return {pid: cmd for pid, cmd in tagged_processes(tag).items()
            if "spawn_main" in cmd and "resource_tracker" not in cmd and _ppid(pid) == parent}


def _ppid(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


@pytest.fixture(autouse=True)
def no_leftovers():
    """A failing test must not leave its parlab (and workers) running: each is killed at the end."""
    STARTED.clear()
    yield
    for proc in STARTED:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def start(parlab_bin, tag, args, out, env_extra=None):
    env = dict(os.environ, PARLAB_TEST_TAG=tag, **(env_extra or {}))
    # A session of its own, so the test can send Ctrl-C's SIGINT to parlab's whole process group
    # as a terminal does.
    proc = subprocess.Popen([parlab_bin, "run", *args, "--out", str(out)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    STARTED.append(proc)
    return proc


def wait_for_workers(proc, tag, n, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        w = workers_of(tag, proc.pid)
        if len(w) >= n:
            return w
        time.sleep(0.05)
    pytest.fail(f"{n} workers did not start within {timeout} s")


def records(out):
    with open(os.path.join(only_run_dir(str(out)), "results.json")) as f:
        return json.load(f)["records"]


def test_every_model_is_canonical_and_leaves_nothing_behind(tmp_path, parlab_bin):
    tag = uuid.uuid4().hex
    proc = start(parlab_bin, tag, ["--kernel", "pi", "--backend", ",".join(MODELS), "--threads", "1,3",
                                   "--size", "12345", "--reps", "2"], tmp_path / "out")
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    recs = records(tmp_path / "out")
    assert sorted({r["backend"] for r in recs}) == sorted(MODELS)
    assert all(r["status"] == "ok" for r in recs), [(r["backend"], r.get("reason")) for r in recs]
    assert len({r["hits"] for r in recs}) == 1
    assert all("the canonical count" in r["validation"]["detail"] for r in recs)
    assert all(r["metrics"]["startup_s"] > 0 and r["metrics"]["tasks"] >= 1 for r in recs)
    assert_none_left(tag)


@pytest.mark.parametrize("backend", ["py-processes", "py-dask-distributed"])
def test_ctrl_c_stops_the_run_and_every_worker(tmp_path, parlab_bin, backend):
    tag = uuid.uuid4().hex
    # About a second per run at 2^18 pure-Python points: Ctrl-C lands in the middle of one.
    proc = start(parlab_bin, tag, ["--kernel", "pi", "--backend", backend, "--threads", "2", "--size", "2^18",
                                   "--reps", "20"], tmp_path / "out")
    wait_for_workers(proc, tag, 2)
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: parlab and its workers alike
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert_none_left(tag)


def ready_workers(proc, tag, n, timeout=120.0):
    """The worker processes once n of them have run parlab's bootstrap (they name themselves
    parlab-worker, embed/workloads/parlab_tasks.py): up, not still starting."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        ready = []
        for pid in workers_of(tag, proc.pid):
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == "parlab-worker":
                        ready.append(pid)
            except OSError:
                pass
        if len(ready) >= n:
            return ready
        time.sleep(0.05)
    pytest.fail(f"{n} workers were not ready within {timeout} s")


def kill_a_worker(parlab_bin, tag, backend, size, reps, out, settle, timeout):
    """Measures pi on `backend` with two workers and SIGKILLs one of them `settle` seconds after
    both are ready (their processes appearing is not enough: on a loaded machine a worker killed
    while it still starts stalls the pool's start-up for its whole timeout); returns parlab's
    (exit code, stderr)."""
    proc = start(parlab_bin, tag, ["--kernel", "pi", "--backend", backend, "--threads", "2",
                                   "--size", size, "--reps", str(reps)], out)
    victim = min(ready_workers(proc, tag, 2))
    time.sleep(settle)
    os.kill(victim, signal.SIGKILL)
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def test_a_killed_process_worker_fails_the_record_and_the_rest_shut_down(tmp_path, parlab_bin):
    tag = uuid.uuid4().hex
    code, err = kill_a_worker(parlab_bin, tag, "py-processes", "2^18", 20, tmp_path / "out", 0.5, 120)
    assert code == 1, err  # a failed measurement
    (r,) = records(tmp_path / "out")
    assert r["status"] == "error" and "terminated abruptly" in r["reason"], r
    assert_none_left(tag)


def test_dask_reruns_a_killed_workers_task_and_stays_canonical(tmp_path, parlab_bin):
    """dask.distributed's nanny restarts a killed worker and the scheduler reruns its tasks, so
    the count is still the canonical one; the restarted worker is shut down like the others."""
    tag = uuid.uuid4().hex
    code, err = kill_a_worker(parlab_bin, tag, "py-dask-distributed", "2^19", 6, tmp_path / "out", 0.2, 300)
    assert code == 0, err
    (r,) = records(tmp_path / "out")
    assert r["status"] == "ok" and "the canonical count" in r["validation"]["detail"], r
    assert_none_left(tag)


def test_missing_dask_is_unavailable_not_an_error(tmp_path, parlab_bin):
    fake = tmp_path / "site"
    for name in ("dask", "distributed"):
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(f"raise ImportError('{name} hidden by the test')\n")
    tag = uuid.uuid4().hex
    proc = start(parlab_bin, tag, ["--kernel", "pi", "--backend", "py-dask-delayed,py-dask-distributed,py-processes",
                                   "--threads", "2", "--size", "4097", "--reps", "1"], tmp_path / "out",
                 env_extra={"PYTHONPATH": str(fake)})
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    by = {r["backend"]: r for r in records(tmp_path / "out")}
    for b in ("py-dask-delayed", "py-dask-distributed"):
        assert by[b]["status"] == "unavailable" and "hidden by the test" in by[b]["reason"], by[b]
    assert by["py-processes"]["status"] == "ok"
    assert_none_left(tag)
