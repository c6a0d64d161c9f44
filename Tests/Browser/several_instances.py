#!/usr/bin/env python3
"""Several instances as deploy/ says: a PostgreSQL server started for the run (Debian's, in a temporary folder,
as the postgres user when run as root), two `parlor serve` with the ExecStart arguments of
deploy/parlor@.service (one per port, the database's address as its EnvironmentFile gives it), and Debian's
nginx with the site of deploy/nginx/ in front of both (least_conn). Two people chat in headless Chromium
through the proxy while their pages stream from different instances; a message, its read receipt and an edit
cross between them live. Every server listens on 127.0.0.1 only and is stopped by PID.

usage: several_instances.py PARLOR_BINARY REPOSITORY ARTIFACTS"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from behind_nginx import (  # noqa: E402
    as_service_user, free_port, keep_failure_artifacts, request, start_nginx, stop_everything, unit_arguments, verify_unit,
    wait_until_listening,
)
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

POSTGRES = "/usr/lib/postgresql/15/bin"


def start_postgres(folder):
    """A cluster of this run's own on a free port; answers (process, port)."""
    run_as = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] if os.geteuid() == 0 else []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    subprocess.run(run_as + [POSTGRES + "/initdb", "-D", folder + "/data", "-U", "parlor", "-A", "trust", "--no-sync"],
                   check=True, capture_output=True)
    port = free_port()
    process = subprocess.Popen(run_as + [POSTGRES + "/postgres", "-D", folder + "/data", "-p", str(port), "-k", folder,
                                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "logging_collector=on",
                                         "-c", "log_directory=" + folder + "/log"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_listening(process, port, "PostgreSQL")
    for _ in range(100):
        if subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "parlor", "-d", "postgres", "-qc", "CREATE DATABASE parlor"],
                          capture_output=True).returncode == 0:
            return process, port
        time.sleep(0.1)
    raise AssertionError("PostgreSQL did not take a database")


def open_streams(port):
    """parlor_event_streams_open of one instance, from its /metrics."""
    status, _, body = request(port, "GET", "/metrics", tls=False)
    assert status == 200, status
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name == "parlor_event_streams_open":
                return sample.value
    raise AssertionError("no parlor_event_streams_open")


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-instances-")
    os.chmod(folder, 0o755)
    state = os.path.join(folder, "state")         # /var/lib/parlor, shared by the instances (one service user)
    working = os.path.join(folder, "working")
    private_tmp = os.path.join(folder, "tmp")
    database_folder = os.path.join(folder, "postgres")
    for path in (state, working, private_tmp, database_folder):
        os.makedirs(path)
    service_user = as_service_user(state, private_tmp)
    environment = dict(os.environ, TMPDIR=private_tmp)
    ports = [free_port(), free_port()]
    verify_unit(folder, "parlor@.service", "parlor@%d.service" % ports[0])
    postgres, postgres_port = start_postgres(database_folder)
    address = "postgres://parlor@127.0.0.1:%d/parlor" % postgres_port
    logs, instances, drivers, nginx = [], [], [], None
    try:
        for index, port in enumerate(ports):
            log = open(os.path.join(folder, "parlor-%d.log" % index), "wb")
            logs.append(log)
            arguments = unit_arguments(state, port, ["--metrics-address", "127.0.0.1"], unit_name="parlor@.service",
                                       environment={"PARLOR_DATABASE": address})
            assert arguments[arguments.index("--port") + 1] == str(port), "the template's %i is the port"
            instances.append(subprocess.Popen(arguments, cwd=working, stdout=log, stderr=log, env=environment, **service_user))
        for process, port in zip(instances, ports):
            wait_until_listening(process, port, "parlor with the template unit's arguments (see %s)" % folder)
            # Ready once its event log's listener is connected (503 until then, a moment after it listens).
            deadline = time.time() + 20
            while request(port, "GET", "/readyz", tls=False)[0] != 200:
                assert time.time() < deadline, "ready within 20 s, its event log listened to"
                time.sleep(0.05)
        nginx, _, https_port = start_nginx(folder, ports)
        base = "https://127.0.0.1:%d" % https_port

        ana, ben = common.browser(extra=("--ignore-certificate-errors",)), common.browser(extra=("--ignore-certificate-errors",))
        drivers += [ana, ben]
        # The unit takes people by invitation: Ana, the first, is the administrator; Ben joins through her link.
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor", through=common.make_join_link(ana, base))
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        ben.get(chat)
        # least_conn sends the second long-lived stream to the instance without one: a page on each.
        deadline = time.time() + 20
        while not all(open_streams(port) >= 1 for port in ports):
            assert time.time() < deadline, "a page streams from each instance: %s" % [open_streams(port) for port in ports]
            time.sleep(0.1)
        common.step("pages-on-two-instances", ana, ben)

        common.send(ana, "Hello across instances")
        common.wait_for(ben, common.text_in(".messages", "Hello across instances"), "the message reaches Ben from the other instance")
        cell = common.own_cell(ana, "Hello across instances")
        common.wait_for(ana, lambda d: "Read" in common.delivery(cell)(d), "Ana sees Read from the other instance")
        common.send(ben, "And back")
        common.wait_for(ana, common.text_in(".messages", "And back"), "Ben's answer reaches Ana")
        common.step("chat-across-instances", ana, ben)
        print("all steps passed", file=sys.stderr, flush=True)
    except BaseException:
        keep_failure_artifacts(drivers, folder, ("parlor-0.log", "parlor-1.log", "error.log"))
        raise
    finally:
        stop_everything(drivers, (nginx,), instances)
        postgres.send_signal(signal.SIGINT)
        postgres.wait(timeout=30)
        for log in logs:
            log.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
