#!/usr/bin/env python3
"""The scale run (docs/scale.md): the real `attune controller` against `attune sim serve` holding
a generated cluster, with a real Prometheus scraping the simulator (or, with --metrics sim, the
simulator's own metrics source behind its Prometheus query API, which can hold a day of history
simulated before the start: --history 24h). Prints, per configuration of
the controller: peak and steady RSS, the time to the first complete reconcile of every policy,
the steady pass time, the time from a pod change to its policy's reconcile, and the API requests
per minute the simulator answered.

  bench/scale/scale_run.py                                  # 100,000 pods, 2,000 nodes, 10,000 policies
  bench/scale/scale_run.py --pods 2000 --nodes 40 --policies 200 --namespaces 20
  bench/scale/scale_run.py --config list= --config views=--informer-views   # two configurations
  bench/scale/scale_run.py --shards 3                         # then 3 shard processes
  bench/scale/scale_run.py --shards 3 --handover              # and kill shard 0's leader
  bench/scale/scale_run.py --metrics sim --history 24h        # a day of history, no Prometheus

Every configuration runs against the same simulator and Prometheus, one after the other; the
first is the baseline, and every other one is also printed as a ratio to it. Exit status: 0 when
every configuration completed its passes, 1 when one did not (the log files are kept and named),
2 on a usage error, 77 when a peer (prometheus, kubectl) is not installed.
"""
import argparse
import base64
import ctypes
import json
import os
import re
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from generate_scenario import MODES  # noqa: E402 (the policies' modes, by index)

SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
from free_port import free_port  # noqa: E402
SKIP = 77
# The handover measurement's Leases: in a namespace of the generated cluster, with the operator's
# default lease duration.
LEASE_NAMESPACE = "team-0000"
LEASE_DURATION_S = 15
# Auto policies whose pods the handover lets be resized.
HANDOVER_POLICIES = 48


M64 = (1 << 64) - 1


def shard_of_namespace(namespace, total):
    """controller::shardOfNamespace (src/controller/shard.cc): FNV-1a 64 of the name, SplitMix64's
    finaliser, then jump consistent hashing into [0, total)."""
    h = 14695981039346656037
    for c in namespace.encode():
        h = ((h ^ c) * 1099511628211) & M64
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & M64
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & M64
    key, b, j = h ^ (h >> 31), -1, 0
    while j < total:
        b = j
        key = (key * 2862933555777941757 + 1) & M64
        j = int(float(b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b


def unowned_shard(namespaces, least):
    """(shard, total shards) with total >= least such that the shard owns none of `namespaces`
    and is not shard 0 (which also owns the cluster-scoped work)."""
    total = least
    while True:
        owned = {shard_of_namespace(ns, total) for ns in namespaces}
        for shard in range(1, total):
            if shard not in owned:
                return shard, total
        total += 1


def log(message):
    print(f"scale: {message}", flush=True)


def parse_ts(text):
    """An RFC 3339 time (the operator's log `ts`, a status time) as Unix seconds."""
    text = text.replace("Z", "+00:00")
    return datetime.fromisoformat(text).timestamp()


class Failure(Exception):
    pass


def wait_until(limit, what, check, interval=0.2):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    raise Failure(f"timed out after {limit:.0f} s waiting for {what}")


class Kube:
    """The simulator's REST API, with the kubeconfig's server, CA and token."""

    def __init__(self, kubeconfig):
        text = open(kubeconfig).read()
        self.server = re.search(r"server:\s*(\S+)", text).group(1)
        ca = re.search(r"certificate-authority-data:\s*(\S+)", text)
        token = re.search(r"token:\s*(\S+)", text)
        self.token = token.group(1) if token else None
        self.context = ssl.create_default_context()
        if ca:
            self.context.load_verify_locations(cadata=base64.b64decode(ca.group(1)).decode())
        self.ca_pem = base64.b64decode(ca.group(1)).decode() if ca else None

    def request(self, method, path, body=None, content_type="application/json", timeout=600):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.server + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, context=self.context, timeout=timeout) as r:
            return r.read()

    def get(self, path):
        return json.loads(self.request("GET", path))

    def requests_by_kind(self):
        """API requests answered so far by "verb resource", or {} when not counted."""
        try:
            text = self.request("GET", "/metrics/requests").decode()
        except urllib.error.HTTPError:
            return {}
        return {f"{m.group(1)} {m.group(2)}": int(m.group(3)) for m in re.finditer(
            r'^attune_sim_api_requests_total\{verb="([^"]*)",resource="([^"]*)"\} (\d+)',
            text, re.M)}

    def last_tick(self):
        """The simulator's last tick as (start, seconds it held the simulation's lock), or None
        when it does not report its ticks."""
        try:
            text = self.request("GET", "/metrics/requests").decode()
        except urllib.error.HTTPError:
            return None
        start = re.search(r"^attune_sim_last_tick_start_timestamp_seconds (\S+)", text, re.M)
        held = re.search(r"^attune_sim_last_tick_seconds (\S+)", text, re.M)
        return (float(start.group(1)), float(held.group(1))) if start and held else None

    def requests_total(self):
        """API requests the simulator has answered, or None when it does not count them."""
        try:
            text = self.request("GET", "/metrics/requests").decode()
        except urllib.error.HTTPError:
            return None
        m = re.search(r"^attune_sim_api_requests_all_total (\d+)", text, re.M)
        return int(m.group(1)) if m else None


def prometheus_query_totals(url):
    """Queries Prometheus has answered on /api/v1/query and /api/v1/query_range: their count,
    the seconds it spent on them and the bytes it sent, from its own /metrics."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as r:
        text = r.read().decode()
    totals = {"queries": 0.0, "seconds": 0.0, "bytes": 0.0}
    for name, key in (("prometheus_http_request_duration_seconds_count", "queries"),
                      ("prometheus_http_request_duration_seconds_sum", "seconds"),
                      ("prometheus_http_response_size_bytes_sum", "bytes")):
        for m in re.finditer(rf'^{name}{{handler="/api/v1/query(?:_range)?"}} (\S+)', text, re.M):
            totals[key] += float(m.group(1))
    return totals


def operator_query_totals(ports):
    """The Prometheus queries the controller processes listening on `ports` have sent, the
    seconds they waited for them and the bytes they read, from their own /metrics (the
    attune_prometheus_* series); a process that does not answer counts nothing."""
    totals = {"queries": 0.0, "seconds": 0.0, "bytes": 0.0}
    for port in ports:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
                text = r.read().decode()
        except (urllib.error.URLError, OSError):
            continue
        for name, key in (("attune_prometheus_queries_total", "queries"),
                          ("attune_prometheus_query_duration_seconds_sum", "seconds"),
                          ("attune_prometheus_response_bytes_total", "bytes")):
            for m in re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)", text, re.M):
                totals[key] += float(m.group(1))
    return totals


def die_with_parent():
    """In a child before exec: SIGTERM when the script dies, however it dies (prctl
    PR_SET_PDEATHSIG), so that no simulator, Prometheus or controller outlives a killed run."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


class Process:
    def __init__(self, argv, log_path, env=None):
        self.argv = argv
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True, preexec_fn=die_with_parent)
        self.pid = self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=60):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid):
    """User plus system CPU time of a process so far, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RssSampler(threading.Thread):
    """VmRSS every `interval` seconds, and VmHWM (the kernel's peak) at each sample."""

    def __init__(self, pid, interval=0.5):
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.samples = []  # (monotonic time, VmRSS KiB)
        self.hwm = 0
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            rss = kib(self.pid, "VmRSS")
            hwm = kib(self.pid, "VmHWM")
            if rss is None:
                break
            self.samples.append((time.monotonic(), rss))
            self.hwm = max(self.hwm, hwm or 0)
            self.stopping.wait(self.interval)

    def stop(self):
        self.stopping.set()
        self.join()

    def mean_since(self, since):
        values = [rss for t, rss in self.samples if t >= since]
        return statistics.mean(values) if values else None


class LogFollower:
    """The operator's JSON log lines, read as they are written."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.records = []

    def poll(self):
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        for line in data[:end].splitlines():
            try:
                self.records.append(json.loads(line))
            except ValueError:
                pass  # not a log record (a crash message)
        return self.records

    def passes(self):
        return [r for r in self.poll() if r.get("msg") == "reconcile pass done"]

    def queue_runs(self):
        return [r for r in self.poll() if r.get("msg") == "reconciled from the work queue"]

    def failures(self):
        return [r for r in self.poll()
                if r.get("msg") in ("reconcile pass failed", "work queue poll failed")]


def resizes(port):
    """A controller's attune_resize_total{result="success"} from its /metrics, summed (one count
    per resource of a resize)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    return sum(float(m.group(1)) for m in re.finditer(
        r'^attune_resize_total\{[^}]*result="success"[^}]*\} (\S+)', text, re.M))


def overlaps_tick(record, ticks):
    """Whether the pass logged in `record` (ending at its timestamp) overlapped one of the
    simulator's `ticks` (start, seconds)."""
    end = datetime.fromisoformat(record["ts"].replace("Z", "+00:00")).timestamp()
    start = end - float(record["duration_s"])
    return any(t < end and start < t + held for t, held in ticks)


def fmt_mib(value_kib):
    return "n/a" if value_kib is None else f"{value_kib / 1024:.0f} MiB"


def fmt_n(value, digits=0):
    return "n/a" if value is None else f"{value:.{digits}f}"


def fmt_s(value):
    return "n/a" if value is None else f"{value:.2f} s"


class Run:
    """One configuration of the controller (one process, or one per shard) against the cluster.
    The figures fill in as the run goes; a run that fails or runs out of time keeps those it has,
    with the reason in "error"."""

    def __init__(self, args, name, extra, kube, kubeconfig, prometheus_url, work, shards=1,
                 handover=False):
        self.args = args
        self.name = name
        self.extra = extra
        self.kube = kube
        self.kubeconfig = kubeconfig
        self.prometheus_url = prometheus_url
        self.ports = []
        self.work = work
        self.shards = shards
        self.handover = handover
        self.figures = {"processes": shards}
        self.deadline = None
        self.standbys = []
        self.steady_from = None

    def controller_argv(self, shard, replica, port, total=None):
        """The controller's arguments as replica `replica` of `shard` out of `total` shards (the
        run's own number by default); replica None runs without a Lease."""
        total = self.shards if total is None else total
        argv = [self.args.binary, "controller", "--kubeconfig", self.kubeconfig,
                "--prometheus-url", self.prometheus_url,
                "--metrics-address", f"127.0.0.1:{port}",
                "--log-format", "json",
                "--reconcile-interval", self.args.reconcile_interval,
                "--scrape-interval", self.args.scrape_interval]
        if self.args.metrics == "sim":  # the simulator's query API, over its HTTPS and token
            argv += ["--prometheus-ca-file", os.path.join(self.work, "ca.pem"),
                     "--prometheus-bearer-token-file", os.path.join(self.work, "token")]
        if self.handover and replica:  # each shard elects on its own Lease (docs/sharding.md)
            argv += ["--leader-election-namespace", LEASE_NAMESPACE,
                     "--lease-duration", f"{LEASE_DURATION_S}s",
                     "--identity", f"shard-{shard}-{replica}"]
        else:
            argv.append("--leader-elect=false")
        if total > 1:
            argv += ["--shard", str(shard), "--total-shards", str(total)]
        return argv + self.extra

    def query_totals(self):
        """Queries answered so far: Prometheus' own count, or with --metrics sim the
        controllers' (the simulator keeps none)."""
        if self.args.metrics == "sim":
            return operator_query_totals(self.ports)
        return prometheus_query_totals(self.prometheus_url)

    def wait(self, limit, what, check, interval=0.2):
        """wait_until, within what is left of the configuration's --deadline."""
        left = self.deadline - time.monotonic()
        if left < limit:
            if left <= 0:
                raise Failure(f"--deadline reached before {what}")
            try:
                return wait_until(left, what, check, interval)
            except Failure:
                raise Failure(f"--deadline reached while waiting for {what}")
        return wait_until(limit, what, check, interval)

    def run(self):
        processes, samplers, followers = [], [], []
        self.deadline = time.monotonic() + self.args.deadline
        requests_before = self.kube.requests_total()
        self.queries_before = self.query_totals()
        started_wall = time.time()
        self.ports = [free_port() for _ in range(self.shards)]
        for shard in range(self.shards):
            path = os.path.join(self.work, f"controller-{self.name}-{shard}.log")
            p = Process(self.controller_argv(shard, "a", self.ports[shard]), path)
            processes.append(p)
            s = RssSampler(p.pid)
            s.start()
            samplers.append(s)
            followers.append(LogFollower(path))
        log(f"[{self.name}] {self.shards} controller process(es) started: "
            + " ".join(str(p.pid) for p in processes))
        unowned = None
        if self.shards > 1:
            unowned = self._start_unowned()
        f = self.figures
        try:
            self._measure(processes, samplers, followers, started_wall, requests_before)
        except Failure as e:
            f["error"] = str(e)
            log(f"[{self.name}] FAILED: {e}")
        except Exception as e:  # a fault of the script itself: keep the figures measured so far
            f["error"] = f"the scale run script failed: {e!r}"
            log(f"[{self.name}] FAILED:\n{traceback.format_exc()}")
        except KeyboardInterrupt as e:  # SIGINT, or SIGTERM (stop_on_signal): keep the figures
            f["error"] = f"interrupted ({e or 'SIGINT'})"
            f["interrupted"] = True
            log(f"[{self.name}] interrupted")
        finally:
            f["load_average_1m"] = os.getloadavg()[0]
            if unowned:
                process, sampler, follower = unowned
                # Its passes must have found no policy: otherwise this script's port of
                # shardOfNamespace disagrees with the controller's, and the figure is not the
                # undivided part.
                owned = max((int(r["policies"]) for r in follower.passes()), default=0)
                if owned:
                    f["unowned_error"] = (f"the controller meant to own no namespace reconciled "
                                          f"{owned} policies")
                else:
                    f["unowned_peak_rss_kib"] = max(sampler.hwm, kib(process.pid, "VmHWM") or 0)
                    f["unowned_steady_rss_kib"] = sampler.mean_since(self.steady_from or 0)
                process.stop()
                sampler.stop()
            f["peak_rss_per_process_kib"] = [max(s.hwm, kib(p.pid, "VmHWM") or 0)
                                             for s, p in zip(samplers, processes)]
            f["peak_rss_kib"] = max(f["peak_rss_per_process_kib"])
            f["cpu_total_s"] = max(cpu_seconds(p.pid) or 0 for p in processes)
            failures = [r for fl in followers for r in fl.failures()]
            f["failed_passes"] = len(failures)
            if failures:
                log(f"[{self.name}] {len(failures)} failed passes or polls, first: "
                    f"{json.dumps(failures[0])}")
            for p in processes + self.standbys:
                p.stop()
            for s in samplers:
                s.stop()
        return f

    def _start_unowned(self):
        """A controller of a shard that owns none of the cluster's namespaces: what it holds is
        the part of every process that sharding does not divide (the binary and its libraries,
        the node cache, the watches, which still receive every namespace's objects)."""
        namespaces = [n["metadata"]["name"]
                      for n in self.kube.get("/api/v1/namespaces").get("items") or []]
        shard, total = unowned_shard(namespaces, self.shards + 1)
        port = free_port()
        # Its own shard numbering, and no Lease: it would never act anyway.
        path = os.path.join(self.work, f"controller-{self.name}-unowned.log")
        process = Process(self.controller_argv(shard, None, port, total), path)
        sampler = RssSampler(process.pid)
        sampler.start()
        self.figures["unowned_shard"] = f"--shard {shard} --total-shards {total}"
        log(f"[{self.name}] a controller owning none of the {len(namespaces)} namespaces "
            f"(--shard {shard} --total-shards {total}) started: {process.pid}")
        return process, sampler, LogFollower(path)

    def _check_alive(self, processes):
        for p in processes:
            if not p.alive():
                raise Failure(f"the controller exited ({p.proc.returncode}); see {p.log_path}")

    def _measure(self, processes, samplers, followers, started_wall, requests_before):
        args = self.args
        f = self.figures
        want = args.policies

        # First complete reconcile: every process has finished its first full pass, and the
        # passes together covered every policy.
        def first_passes():
            self._check_alive(processes)
            firsts = []
            for follower in followers:
                done = follower.passes()
                if not done:
                    return None
                firsts.append(done[0])
            return firsts

        firsts = self.wait(args.first_pass_timeout, "the first reconcile pass", first_passes, 0.5)
        cpu_first = [cpu_seconds(p.pid) or 0 for p in processes]
        requests_first = self.kube.requests_total()
        queries_first = self.query_totals()
        for key in ("queries", "seconds", "bytes"):
            f[f"prometheus_{key}_to_first_reconcile"] = (
                queries_first[key] - self.queries_before[key])
        covered = sum(int(r["policies"]) for r in firsts)
        f["first_reconcile_s"] = max(parse_ts(r["ts"]) for r in firsts) - started_wall
        f["first_pass_s"] = max(float(r["duration_s"]) for r in firsts)
        f["cpu_to_first_reconcile_s"] = max(cpu_first)
        f["requests_initial"] = (None if requests_before is None else
                                 requests_first - requests_before)
        f["rss_after_first_pass_kib"] = max(kib(p.pid, "VmRSS") or 0 for p in processes)
        f["policies_first_pass"] = covered
        statuses, recommending = self._reconciled_policies(started_wall)
        f["policies_with_status"] = statuses
        f["policies_with_recommendations"] = recommending
        log(f"[{self.name}] first complete reconcile of {covered} policies after "
            f"{f['first_reconcile_s']:.1f} s (first pass {f['first_pass_s']:.2f} s, "
            f"{f['cpu_to_first_reconcile_s']:.1f} s CPU; {statuses} policies carry a "
            f"lastReconcileTime, {recommending} recommendations)")
        if args.history and recommending == 0:
            raise Failure(f"no policy has recommendations after a first pass over "
                          f"{args.history} of history")
        if covered != want:
            raise Failure(f"the first passes covered {covered} policies, want {want}")
        if statuses < want:
            raise Failure(f"{statuses} of {want} policies carry status.lastReconcileTime after "
                          f"the first pass")

        # Steady passes: the next full passes of every process; RSS, CPU, API requests and
        # Prometheus queries over them.
        if args.steady_passes > 0:
            self._steady(processes, samplers, followers)

        # A pod change: delete one pod of a Deployment and time its policy's reconcile, in the
        # idle time after a full pass.
        f["pod_change_s"] = []
        for i in range(args.pod_changes):
            f["pod_change_s"].append(self._pod_change(i, followers, processes))

        if self.handover:
            self._handover(processes, followers)

    def _steady(self, processes, samplers, followers):
        args = self.args
        f = self.figures
        steady_from = time.monotonic()
        self.steady_from = steady_from
        steady_from_wall = time.time()
        cpu_steady = [cpu_seconds(p.pid) or 0 for p in processes]
        requests_steady = self.kube.requests_total()
        kinds_steady = self.kube.requests_by_kind()
        queries_steady = self.query_totals()
        seen = [len(fl.passes()) for fl in followers]
        seen_queue = [len(fl.queue_runs()) for fl in followers]
        count = args.steady_passes

        # The simulator's ticks in the window (read every 0.5 s: a tick is a minute of wall time
        # at the run's speed). A tick holds the simulation's lock, so a pass whose reads fall in
        # one waits for it.
        ticks = set()

        def steady_done():
            self._check_alive(processes)
            tick = self.kube.last_tick()
            if tick:
                ticks.add(tick)
            return all(len(fl.passes()) >= n + count for fl, n in zip(followers, seen))

        limit = count * (self._interval_s() + self._longest_pass(followers)) + 120
        self.wait(limit, f"{count} steady passes", steady_done, 0.5)
        requests_end = self.kube.requests_total()
        kinds_end = self.kube.requests_by_kind()
        queries_end = self.query_totals()
        minutes = (time.time() - steady_from_wall) / 60
        per_process = [[float(r["duration_s"]) for r in fl.passes()[n:n + count]]
                       for fl, n in zip(followers, seen)]
        steady = [d for durations in per_process for d in durations]
        # Each steady pass with the resizes it made, and what the work queue reconciled between
        # them (a wave of ended observations or cooldowns is resized there): a pass that resizes
        # waits on its writes, and the simulator's writes and kubelet actions share its lock
        # with the usage reads of the passes.
        f["steady_passes"] = [
            [float(r["duration_s"]), int(r.get("resizes", 0)), overlaps_tick(r, ticks)]
            for fl, n in zip(followers, seen) for r in fl.passes()[n:n + count]]
        f["steady_ticks_s"] = sorted(held for t, held in ticks if t + held >= steady_from_wall)
        queue = [r for fl, n in zip(followers, seen_queue) for r in fl.queue_runs()[n:]]
        f["steady_queue_runs"] = len(queue)
        f["steady_queue_resizes"] = sum(int(r.get("resizes", 0)) for r in queue)
        f["steady_queue_longest"] = max(
            ([float(r["duration_s"]), int(r.get("resizes", 0))] for r in queue), default=None)
        f["steady_pass_median_s"] = statistics.median(steady)
        f["steady_pass_max_s"] = max(steady)
        f["steady_pass_per_process_s"] = [statistics.median(d) for d in per_process]
        # CPU per steady pass: the process's CPU time over the steady passes (the polls between
        # them included), divided by their number; unlike wall time, it does not grow when other
        # processes take the cores.
        f["cpu_per_steady_pass_s"] = max(((cpu_seconds(p.pid) or 0) - c) / count
                                         for p, c in zip(processes, cpu_steady))
        f["requests_per_minute"] = (None if requests_steady is None else
                                    (requests_end - requests_steady) / minutes)
        f["requests_per_minute_by_kind"] = {
            k: (n - kinds_steady.get(k, 0)) / minutes for k, n in kinds_end.items()
            if n > kinds_steady.get(k, 0)}
        for key in ("queries", "seconds", "bytes"):
            f[f"prometheus_{key}_per_steady_pass"] = (
                queries_end[key] - queries_steady[key]) / (count * self.shards)
        f["steady_rss_per_process_kib"] = [s.mean_since(steady_from) for s in samplers]
        f["steady_rss_kib"] = max(v or 0 for v in f["steady_rss_per_process_kib"])

    def _handover(self, processes, followers):
        """Starts a standby for shard 0 and waits until it is ready. Then lets pods be resized:
        some Auto policies get `minimumDataPoints: 1`, a query step of one scrape interval and an
        hour's history window (the run's minutes of history hold fewer than the default 48 points
        of 5 minutes), and `maxConcurrentResizes: 50`. As soon as shard 0's leader has resized a pod, it is killed (SIGKILL, as a
        node loss would): the standby's takeover of the Lease and its first pass are timed, and
        the Resized Events tell whether any pod was resized by both."""
        f = self.figures
        lease_path = (f"/apis/coordination.k8s.io/v1/namespaces/{LEASE_NAMESPACE}/leases/"
                      "attune-leader-shard-0")
        lease = self.kube.get(lease_path)["spec"]
        if lease.get("holderIdentity") != "shard-0-a":
            raise Failure(f"shard 0's Lease is held by {lease.get('holderIdentity')!r}, "
                          "want shard-0-a")
        port = free_port()
        path = os.path.join(self.work, f"controller-{self.name}-0-standby.log")
        started = time.monotonic()
        standby = Process(self.controller_argv(0, "b", port), path)
        self.standbys.append(standby)

        def ready():
            self._check_alive([standby])
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                    return r.status == 200
            except (urllib.error.URLError, OSError):
                return False

        self.wait(self.args.first_pass_timeout, "the standby's readiness", ready, 0.5)
        f["standby_ready_s"] = time.monotonic() - started
        f["standby_rss_kib"] = kib(standby.pid, "VmRSS")
        log(f"[{self.name}] shard 0's standby ready after {f['standby_ready_s']:.1f} s "
            f"(RSS {fmt_mib(f['standby_rss_kib'])})")

        auto = [i for i in range(self.args.policies) if MODES[i % len(MODES)] == "Auto"]
        # One data point is enough, a query step of one scrape and a rate window of three, over
        # the last hour (the run's history; at most 360 points a series).
        scrape = self._seconds(self.args.scrape_interval)
        source = {"minimumDataPoints": 1, "historyWindow": "1h",
                  "queryStep": f"{max(scrape, 10)}s", "rateWindow": f"{max(3 * scrape, 30)}s"}
        # Up to 50 resizes in flight: the leader resizes a workload's pods in one burst, and the
        # kill falls inside it.
        patch = {"spec": {"metricsSource": source, "updateStrategy": {"maxConcurrentResizes": 50}}}
        for i in auto[:HANDOVER_POLICIES]:
            ns = f"team-{i % self.args.namespaces:04d}"
            self.kube.request("PATCH", f"/apis/attune.io/v1alpha1/namespaces/{ns}/attunepolicies/"
                              f"app-{i:05d}", patch, content_type="application/merge-patch+json")

        def leader_resizes():
            self._check_alive(processes)
            return resizes(self.ports[0])

        self.wait(self._interval_s() + self._longest_pass(followers[:1]) + 120,
                  "shard 0's leader to resize a pod", leader_resizes, 0.02)
        renewed = parse_ts(self.kube.get(lease_path)["spec"]["renewTime"])
        killed = time.time()
        processes[0].proc.kill()
        processes[0].proc.wait()
        log(f"[{self.name}] killed shard 0's leader (pid {processes[0].pid}) as soon as it "
            f"had resized a pod of the {min(len(auto), HANDOVER_POLICIES)} Auto policies given "
            "one data point as enough")

        def taken():
            self._check_alive([standby])
            spec = self.kube.get(lease_path)["spec"]
            return spec if spec.get("holderIdentity") == "shard-0-b" else None

        spec = self.wait(LEASE_DURATION_S * 4 + 60, "the standby to take shard 0's Lease", taken,
                         0.1)
        f["handover_acquired_s"] = parse_ts(spec["acquireTime"]) - killed
        f["handover_since_renewal_s"] = parse_ts(spec["acquireTime"]) - renewed
        follower = LogFollower(path)
        self.wait(self._interval_s() + self.args.first_pass_timeout, "the standby's first pass",
                  follower.passes, 0.5)
        first = follower.passes()[0]
        f["handover_first_pass_s"] = parse_ts(first["ts"]) - killed
        f["standby_first_pass_duration_s"] = float(first["duration_s"])
        f["standby_resizes_first_pass"] = int(first["resizes"])
        # The standby carries on with the pods the leader left: its first resize, then the end of
        # its next pass (when the leader resized every pod it was given, there is none).
        limit = time.monotonic() + self._interval_s() + self._longest_pass([follower]) + 120
        while time.monotonic() < limit and not resizes(port):
            time.sleep(0.2)
        f["standby_first_resize_s"] = (time.time() - killed) if resizes(port) else None
        if f["standby_first_resize_s"] is not None:
            passes = len(follower.passes())
            self.wait(self._interval_s() + self._longest_pass([follower]) + 120,
                      "the standby's next pass", lambda: len(follower.passes()) > passes, 0.5)
        by = self._resized_by()
        f["pods_resized_by_leader"] = sum(1 for ids in by.values() if "shard-0-a" in ids)
        f["pods_resized_by_standby"] = sum(1 for ids in by.values() if "shard-0-b" in ids)
        f["pods_resized_by_both"] = sum(1 for ids in by.values()
                                        if {"shard-0-a", "shard-0-b"} <= ids)
        # Only this run's replicas (shard-N-a, shard-N-b): an earlier configuration may have
        # resized pods too, under another identity.
        f["pods_resized_by_two_shards"] = sum(
            1 for ids in by.values()
            if len({i.split("-")[1] for i in ids if i.startswith("shard-")}) > 1)
        log(f"[{self.name}] the standby took shard 0's Lease {f['handover_acquired_s']:.2f} s "
            f"after the kill ({f['handover_since_renewal_s']:.2f} s after the last renewal; lease "
            f"duration {LEASE_DURATION_S} s) and ended its first pass "
            f"{f['handover_first_pass_s']:.1f} s after the kill; pods resized by the leader "
            f"{f['pods_resized_by_leader']}, by the standby {f['pods_resized_by_standby']}, by "
            f"both {f['pods_resized_by_both']}")
        if f["pods_resized_by_both"] or f["pods_resized_by_two_shards"]:
            raise Failure(f"{f['pods_resized_by_both']} pods resized by both of shard 0's "
                          f"replicas, {f['pods_resized_by_two_shards']} by two shards")

    def _resized_by(self):
        """The replicas (reportingInstance) whose Resized Events name each pod, read 5,000 Events
        at a time."""
        out = {}
        token = None
        while True:
            page = self.kube.get("/api/v1/events?limit=5000" + (
                f"&continue={urllib.parse.quote(token)}" if token else ""))
            for e in page.get("items") or []:
                if e.get("reason") != "Resized":
                    continue
                obj = e.get("involvedObject") or {}
                out.setdefault(f"{obj.get('namespace')}/{obj.get('name')}", set()).add(
                    e.get("reportingInstance", ""))
            token = page.get("metadata", {}).get("continue")
            if not token:
                return out

    def _interval_s(self):
        return self._seconds(self.args.reconcile_interval)

    @staticmethod
    def _seconds(duration):
        """A duration flag such as 30s or 2m in seconds (60 when it is neither)."""
        m = re.fullmatch(r"(\d+)(s|m)", duration)
        return int(m.group(1)) * (60 if m.group(2) == "m" else 1) if m else 60

    def _longest_pass(self, followers):
        return max((float(r["duration_s"]) for fl in followers for r in fl.passes()), default=0)

    def _reconciled_policies(self, since):
        """Policies reconciled since `since`, and how many of them carry recommendations."""
        items = self.kube.get("/apis/attune.io/v1alpha1/attunepolicies")["items"]
        reconciled = [p["status"] for p in items if p.get("status", {}).get("lastReconcileTime")
                      and parse_ts(p["status"]["lastReconcileTime"]) >= since]
        return len(reconciled), sum(1 for st in reconciled if st.get("recommendations"))

    def _pod_change(self, i, followers, processes):
        args = self.args
        index = (i * 7919 + 1) % args.policies  # spread over the Deployments
        ns = f"team-{index % args.namespaces:04d}"
        name = f"app-{index:05d}"
        # In the idle time after a full pass, so that the next resync cannot be what reconciles
        # it: when too little of it is left, after the next pass. Passes that take longer than
        # the reconcile interval run back to back; then the change waits for a pass.
        last = max((r for fl in followers for r in fl.passes()), key=lambda r: parse_ts(r["ts"]))
        idle = self._interval_s() - float(last["duration_s"])
        left = parse_ts(last["ts"]) + idle - time.time()
        longest = self._longest_pass(followers)
        if idle > 0 and left < min(5.0, idle / 2):
            passes = sum(len(fl.passes()) for fl in followers)
            self.wait(self._interval_s() + 2 * longest + 60, "a full pass",
                      lambda: sum(len(fl.passes()) for fl in followers) > passes, 0.2)
        pods = self.kube.get(f"/api/v1/namespaces/{ns}/pods?labelSelector="
                             f"app.kubernetes.io%2Fname%3D{name}")["items"]
        running = [p for p in pods if p.get("status", {}).get("phase") == "Running"
                   and not p["metadata"].get("deletionTimestamp")]
        if not running:
            raise Failure(f"no running pod of {ns}/{name} to change")
        pod = running[0]["metadata"]["name"]
        before = [len(fl.queue_runs()) for fl in followers]
        changed = time.time()
        self.kube.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{pod}")
        key = f"{ns}/{name}"

        def names():
            return any("named" in r for fl in followers for r in fl.queue_runs())

        def begun(record):
            return parse_ts(record["ts"]) - float(record.get("duration_s", 0))

        def reconciling(naming):
            """The operator's own record of what reconciled the policy, (end, what) in time
            order: the work-queue runs begun after the change (one begun before it read the pods
            before it) that name it ("named": the policies a run reconciled, the first few
            dozen, those a pod change brought in first; with a controller that names none, as
            builds before that field, every such run), and the full passes begun after it of
            the process owning the namespace (the only one, or the shard whose runs have named
            its policies), which take it off the queue as well."""
            run = "the run naming it" if naming else "the first run"
            owners = [fl for fl in followers if len(followers) == 1 or any(
                k.startswith(f"{ns}/") for r in fl.queue_runs()
                for k in r.get("named", "").split(","))]
            return sorted([(parse_ts(r["ts"]), run)
                           for fl, n in zip(followers, before) for r in fl.queue_runs()[n:]
                           if begun(r) >= changed
                           and (not naming or key in r.get("named", "").split(","))] + [
                (parse_ts(r["ts"]), "a full pass begun after it")
                for fl in owners for r in fl.passes() if begun(r) >= changed])

        def reconciled():
            # A controller that names its policies is confirmed by that record alone: the
            # policy's status can move past the change through a run begun before it, and can
            # lag the reconcile (a status that records nothing the run did, such as a heartbeat
            # or a new recommendation, is held and written between runs, after the ones held
            # before it). Otherwise, by the status.
            self._check_alive(processes)
            if names():
                return bool(reconciling(True))
            policy = self.kube.get(f"/apis/attune.io/v1alpha1/namespaces/{ns}/attunepolicies/"
                                   f"{name}")
            at = policy.get("status", {}).get("lastReconcileTime")
            return at and parse_ts(at) >= changed

        self.wait(self._interval_s() + 2 * longest + 60, f"the reconcile of {key}",
                  reconciled, 0.05)
        seen = time.time()
        after = reconciling(names())
        latency = (after[0][0] if after else seen) - changed
        source = f"operator log, {after[0][1]}" if after else "status seen"
        log(f"[{self.name}] deleted pod {ns}/{pod}: policy {name} reconciled after "
            f"{latency:.2f} s ({source})")
        return latency


def print_figures(runs, args):
    print()
    print(f"Scale run: {args.pods} pods on {args.nodes} nodes, {args.policies} policies in "
          f"{args.namespaces} namespaces; reconcile interval {args.reconcile_interval}; "
          + (f"metrics: the simulator's metrics source, {args.history or 'no'} history before "
             f"the start, a sample every simulated tick ({args.scrape_interval})"
             if args.metrics == "sim" else
             f"metrics: Prometheus scraping the simulator every {args.scrape_interval}"))
    base_name, base = runs[0] if runs else (None, {})
    for name, f in runs:
        print(f"\n[{name}]" + (f" ({f['processes']} processes)" if f["processes"] > 1 else ""))
        if f.get("error"):
            print(f"  INCOMPLETE: {f['error']}")
        changes = f.get("pod_change_s") or []
        mib = (lambda v: None if v is None else v / 2**20)
        source = "Prometheus" if args.metrics == "prometheus" else "sim metrics"
        rows = [
            ("operator peak RSS (VmHWM)", fmt_mib(f.get("peak_rss_kib")), "peak_rss_kib"),
            ("operator steady RSS (mean VmRSS)", fmt_mib(f.get("steady_rss_kib")),
             "steady_rss_kib"),
            ("operator RSS after the first pass", fmt_mib(f.get("rss_after_first_pass_kib")),
             "rss_after_first_pass_kib"),
            ("first complete reconcile", fmt_s(f.get("first_reconcile_s")), "first_reconcile_s"),
            ("first pass", fmt_s(f.get("first_pass_s")), "first_pass_s"),
            ("policies recommending after it", fmt_n(f.get("policies_with_recommendations")),
             None),
            ("steady pass (median)", fmt_s(f.get("steady_pass_median_s")),
             "steady_pass_median_s"),
            ("steady pass (max)", fmt_s(f.get("steady_pass_max_s")), "steady_pass_max_s"),
            ("CPU to the first reconcile", fmt_s(f.get("cpu_to_first_reconcile_s")),
             "cpu_to_first_reconcile_s"),
            ("CPU per steady pass", fmt_s(f.get("cpu_per_steady_pass_s")),
             "cpu_per_steady_pass_s"),
            (f"{source} queries to the first reconcile",
             fmt_n(f.get("prometheus_queries_to_first_reconcile")),
             "prometheus_queries_to_first_reconcile"),
            (f"{source} seconds to the first reconcile",
             fmt_s(f.get("prometheus_seconds_to_first_reconcile")),
             "prometheus_seconds_to_first_reconcile"),
            (f"{source} MiB sent to the first reconcile",
             fmt_n(mib(f.get("prometheus_bytes_to_first_reconcile")), 1),
             "prometheus_bytes_to_first_reconcile"),
            (f"{source} queries per steady pass",
             fmt_n(f.get("prometheus_queries_per_steady_pass")),
             "prometheus_queries_per_steady_pass"),
            (f"{source} seconds per steady pass",
             fmt_s(f.get("prometheus_seconds_per_steady_pass")),
             "prometheus_seconds_per_steady_pass"),
            (f"{source} MiB sent per steady pass",
             fmt_n(mib(f.get("prometheus_bytes_per_steady_pass")), 1),
             "prometheus_bytes_per_steady_pass"),
            ("pod change to reconcile (max)", fmt_s(max(changes) if changes else None), None),
            ("API requests per minute (steady)", fmt_n(f.get("requests_per_minute")),
             "requests_per_minute"),
            ("API requests to the first reconcile", fmt_n(f.get("requests_initial")),
             "requests_initial"),
        ]
        for label, value, key in rows:
            ratio = ""
            if f is not base and key and base.get(key) and f.get(key) is not None:
                ratio = f"  ({f[key] / base[key]:.2f} x {base_name})"
            print(f"  {label:<44} {value}{ratio}")
        if f.get("steady_passes"):
            print("  steady passes, s (resizes; * overlapped a simulator tick): " + ", ".join(
                f"{d:.2f}" + (f" ({n})" if n else "") + ("*" if tick else "")
                for d, n, tick in f["steady_passes"]))
            clear = [d for d, n, tick in f["steady_passes"] if not tick]
            if clear and len(clear) < len(f["steady_passes"]):
                print(f"  steady passes clear of a tick: median {statistics.median(clear):.2f} s, "
                      f"max {max(clear):.2f} s")
        if f.get("steady_ticks_s"):
            print("  simulator ticks in the window, s under its lock: " + ", ".join(
                f"{t:.2f}" for t in f["steady_ticks_s"]))
        if f.get("steady_queue_runs"):
            longest = f["steady_queue_longest"]
            print(f"  work queue between them: {f['steady_queue_runs']} reconciles, "
                  f"{f['steady_queue_resizes']} resizes; the longest {longest[0]:.2f} s "
                  f"({longest[1]} resizes)")
        if f["processes"] > 1:
            print("  per process: peak " + ", ".join(
                fmt_mib(v) for v in f.get("peak_rss_per_process_kib", [])) + "; steady " +
                ", ".join(fmt_mib(v) for v in f.get("steady_rss_per_process_kib", [])) +
                "; steady pass " + ", ".join(
                    fmt_s(v) for v in f.get("steady_pass_per_process_s", [])))
        if f.get("unowned_error"):
            print(f"  no undivided part measured: {f['unowned_error']}")
        if "unowned_peak_rss_kib" in f:
            fixed_peak, fixed_steady = f["unowned_peak_rss_kib"], f["unowned_steady_rss_kib"]
            print(f"  a controller owning no namespace ({f['unowned_shard']}), the part of a "
                  f"process that sharding does not divide: peak {fmt_mib(fixed_peak)}, steady "
                  f"{fmt_mib(fixed_steady)}")
            whole = dict(runs).get(args.shards_with) or base
            parts = []
            for what, key, fixed in (("peak", "peak_rss_per_process_kib", fixed_peak),
                                     ("steady", "steady_rss_per_process_kib", fixed_steady)):
                single = whole.get(key[:-len("_per_process_kib")] + "_kib")
                if fixed and single and single > fixed:
                    parts.append(f"{what} " + ", ".join(
                        f"{(v - fixed) / (single - fixed):.2f}" for v in f.get(key, []) if v))
            if parts:
                print(f"  each shard above that part, as a share of one replica above it "
                      f"([{args.shards_with or base_name}]): " + "; ".join(parts))
        kinds = sorted((f.get("requests_per_minute_by_kind") or {}).items(),
                       key=lambda kv: -kv[1])
        if kinds:
            print("  API requests per minute by verb and resource: " + ", ".join(
                f"{k} {v:.0f}" for k, v in kinds[:8]))
        if args.metrics == "sim":
            print("  (sim metrics figures are the controllers' own attune_prometheus_* series: "
                  "seconds they waited, bytes they read)")
        if "requests_initial" in f and f["requests_initial"] is None:
            print("  (this simulator does not count API requests: no /metrics/requests)")
        if changes:
            print("  pod changes: " + ", ".join(fmt_s(v) for v in changes))
        if "handover_acquired_s" in f:
            print(f"  handover of shard 0 (leader killed with SIGKILL): its standby took the Lease "
                  f"{fmt_s(f['handover_acquired_s'])} after the kill "
                  f"({fmt_s(f['handover_since_renewal_s'])} after the last renewal; lease duration "
                  f"{LEASE_DURATION_S} s) and ended its first pass "
                  f"{fmt_s(f.get('handover_first_pass_s'))} after the kill (that pass took "
                  f"{fmt_s(f.get('standby_first_pass_duration_s'))}); the standby was ready "
                  f"{fmt_s(f['standby_ready_s'])} after its start, at "
                  f"{fmt_mib(f['standby_rss_kib'])}")
        if "pods_resized_by_both" in f:
            print(f"  pods resized in the handover: {f['standby_resizes_first_pass']} by the "
                  f"standby in its first pass, its first resize "
                  f"{fmt_s(f.get('standby_first_resize_s'))} after the kill; pods with Resized "
                  f"Events from the leader "
                  f"{f['pods_resized_by_leader']}, the standby {f['pods_resized_by_standby']}, "
                  f"both {f['pods_resized_by_both']}; from two shards "
                  f"{f['pods_resized_by_two_shards']}")
        print(f"  machine load average (1 min) at the end: {f['load_average_1m']:.1f} on "
              f"{os.cpu_count()} CPUs")
        if f.get("failed_passes"):
            print(f"  failed passes or polls: {f['failed_passes']}")


def accepts_flag(binary, flag):
    out = subprocess.run([binary, "controller", "--help"], capture_output=True, text=True)
    return flag in out.stdout + out.stderr


def stop_on_signal(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    signal.signal(signal.SIGTERM, stop_on_signal)
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n".join(
            __doc__.splitlines()[1:]))
    parser.add_argument("--binary", default=os.path.join(SOURCE, "build/release/attune"))
    parser.add_argument("--metrics", choices=("prometheus", "sim"), default="prometheus",
                        help="where the controller reads usage: a real Prometheus scraping the "
                        "simulator (history from the run's start), or the simulator's metrics "
                        "source behind its Prometheus query API (/prometheus, with --history)")
    parser.add_argument("--history", help="with --metrics sim: simulated time the simulator "
                        "runs before the start, e.g. 24h (attune sim serve --history)")
    parser.add_argument("--pods", type=int, default=100000)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--policies", type=int, default=10000)
    parser.add_argument("--namespaces", type=int, default=200)
    parser.add_argument("--reconcile-interval", default="1m")
    parser.add_argument("--scrape-interval",
                        help="Prometheus' scrape interval, which the controller is told "
                        "(default 30s); with --metrics sim the simulator's tick (default 60s, "
                        "the generated scenario's)")
    parser.add_argument("--steady-passes", type=int, default=3)
    parser.add_argument("--pod-changes", type=int, default=3)
    parser.add_argument("--first-pass-timeout", type=float, default=900,
                        help="seconds to wait for a pass (default 900)")
    parser.add_argument("--sim-timeout", type=float, default=1800,
                        help="seconds to wait for the simulator to come up (default 1800)")
    parser.add_argument("--deadline", type=float, default=3600,
                        help="seconds one configuration may take; then it stops and prints "
                             "the figures it has (default 3600)")
    parser.add_argument("--config", action="append", default=[], metavar="NAME=ARGS",
                        help="a configuration of the controller: its name and extra arguments "
                             "(space-separated); the first is the baseline. Default: one, "
                             "'today' with no extra arguments")
    parser.add_argument("--shards-with", metavar="NAME",
                        help="the --config whose arguments the shard processes take (default: "
                             "the first, the baseline)")
    parser.add_argument("--shards", type=int, default=3,
                        help="then run this many shard processes (--shard/--total-shards) "
                             "when the binary accepts the flags; 0 or 1: no sharded run")
    parser.add_argument("--handover", action="store_true",
                        help="in the sharded run, elect each shard's leader on a Lease; at the "
                             "end, start a standby for shard 0, kill shard 0's leader (SIGKILL) "
                             "and time the standby's takeover; count pods resized by both")
    parser.add_argument("--work-dir", help="keep logs and files here (default: a temporary "
                        "directory, removed on success)")
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    args = parser.parse_args()

    for tool in (("prometheus", "kubectl") if args.metrics == "prometheus" else ("kubectl",)):
        if not shutil.which(tool):
            print(f"scale: SKIP: {tool} is not installed (scripts/setup.sh installs it)")
            return SKIP
    if not os.access(args.binary, os.X_OK):
        parser.error(f"--binary {args.binary}: not an executable (build it: cmake --preset "
                     "release && cmake --build --preset release --target attune)")
    configs = []
    for spec in args.config or ["today="]:
        name, _, extra = spec.partition("=")
        if not name:
            parser.error(f"--config {spec}: want NAME=ARGS")
        configs.append((name, extra.split()))
    if args.shards_with and args.shards_with not in dict(configs):
        parser.error(f"--shards-with {args.shards_with}: no --config of that name")
    if args.scrape_interval is None:
        args.scrape_interval = "60s" if args.metrics == "sim" else "30s"
    if args.history and args.metrics != "sim":
        parser.error("--history: wants --metrics sim (a Prometheus started with the run holds "
                     "only what it scraped since)")
    if args.handover and args.shards < 2:
        parser.error("--handover: wants a sharded run (--shards 2 or more)")

    work = args.work_dir or tempfile.mkdtemp(prefix="attune-scale.")
    os.makedirs(work, exist_ok=True)
    log(f"work directory {work}")
    scenario = os.path.join(work, "scenario.yaml")
    with open(scenario, "w") as out:
        subprocess.run([sys.executable, os.path.join(HERE, "generate_scenario.py"),
                        "--pods", str(args.pods), "--nodes", str(args.nodes),
                        "--policies", str(args.policies), "--namespaces",
                        str(args.namespaces)], stdout=out, check=True)

    children = []
    runs = []
    ok = True
    try:
        kubeconfig = os.path.join(work, "kubeconfig")
        sim_port = free_port()
        t0 = time.monotonic()
        sim = Process([args.binary, "sim", "serve", scenario, "--listen",
                       f"127.0.0.1:{sim_port}", "--kubeconfig-out", kubeconfig,
                       "--start", "now", "--speed", "1"]
                      + (["--history", args.history] if args.history else []),
                      os.path.join(work, "sim.log"))
        children.append(sim)

        def sim_up():
            if not sim.alive():
                raise Failure(f"attune sim serve exited; see {sim.log_path}")
            return os.path.exists(kubeconfig)

        wait_until(args.sim_timeout, "attune sim serve", sim_up, 0.5)
        log(f"attune sim serve up after {time.monotonic() - t0:.1f} s "
            f"(RSS {fmt_mib(kib(sim.pid, 'VmRSS'))})")
        kube = Kube(kubeconfig)
        pods = kube.get("/api/v1/pods?limit=1")
        log(f"the simulator holds {1 + pods['metadata'].get('remainingItemCount', 0)} pods")

        ca = os.path.join(work, "ca.pem")
        with open(ca, "w") as out:
            out.write(kube.ca_pem or "")
        if args.metrics == "sim":
            with open(os.path.join(work, "token"), "w") as out:
                out.write(kube.token or "")
            prometheus_url = kube.server + "/prometheus"
            log(f"usage is read from the simulator's metrics source at {prometheus_url}")
        else:
            prom_port = free_port()
            with open(os.path.join(work, "prometheus.yml"), "w") as out:
                out.write(f"""global: {{scrape_interval: {args.scrape_interval}, scrape_timeout: {args.scrape_interval}}}
scrape_configs:
  - job_name: sim
    scheme: https
    tls_config: {{ca_file: {ca}}}
    static_configs: [{{targets: ["127.0.0.1:{sim_port}"]}}]
""")
            prom = Process(["prometheus", f"--config.file={work}/prometheus.yml",
                            f"--storage.tsdb.path={work}/tsdb",
                            f"--web.listen-address=127.0.0.1:{prom_port}"],
                           os.path.join(work, "prometheus.log"))
            children.append(prom)
            prometheus_url = f"http://127.0.0.1:{prom_port}"

            def scraped():
                if not prom.alive():
                    raise Failure(f"prometheus exited; see {prom.log_path}")
                try:
                    with urllib.request.urlopen(
                            f"{prometheus_url}/api/v1/query?query=up", timeout=5) as r:
                        result = json.loads(r.read())["data"]["result"]
                    return result and result[0]["value"][1] == "1"
                except (urllib.error.URLError, OSError, KeyError, ValueError):
                    return False

            wait_until(args.sim_timeout, "Prometheus' first scrape of the simulator", scraped, 1)
            scrape = {}
            for series in ("scrape_duration_seconds", "scrape_samples_scraped"):
                with urllib.request.urlopen(f"{prometheus_url}/api/v1/query?query={series}",
                                            timeout=30) as r:
                    scrape[series] = float(json.loads(r.read())["data"]["result"][0]["value"][1])
            log(f"Prometheus scraped the simulator: {scrape['scrape_samples_scraped']:.0f} samples "
                f"in {scrape['scrape_duration_seconds']:.2f} s "
                f"(RSS {fmt_mib(kib(prom.pid, 'VmRSS'))})")

        for name, extra in configs:
            runs.append((name, Run(args, name, extra, kube, kubeconfig, prometheus_url,
                                   work).run()))
            if runs[-1][1].get("interrupted"):
                raise Failure("interrupted")
        if args.shards > 1:
            if accepts_flag(args.binary, "--total-shards"):
                name = f"{args.shards}-shards"
                extra = dict(configs).get(args.shards_with, configs[0][1])
                runs.append((name, Run(args, name, extra, kube, kubeconfig,
                                       prometheus_url, work, shards=args.shards,
                                       handover=args.handover).run()))
            else:
                log(f"SKIPPED the {args.shards}-shard run: this attune controller does not "
                    "accept --shard/--total-shards")
        log(f"simulator RSS {fmt_mib(kib(sim.pid, 'VmRSS'))}" + (
            "" if args.metrics == "sim" else f", Prometheus RSS {fmt_mib(kib(prom.pid, 'VmRSS'))}"))
    except (Failure, KeyboardInterrupt) as e:
        ok = False
        log(f"FAILED: {e}")
    finally:
        for child in reversed(children):
            child.stop()

    ok = ok and not any(f.get("error") for _, f in runs)
    print_figures(runs, args)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"pods": args.pods, "nodes": args.nodes, "policies": args.policies,
                       "namespaces": args.namespaces, "runs": dict(runs)}, out, indent=2)
    if ok and not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    elif not ok:
        log(f"logs kept in {work}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
