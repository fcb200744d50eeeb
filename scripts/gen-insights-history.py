#!/usr/bin/env python3
"""Fills a simplylockd state database with a year of synthetic history for the insights
benchmark: sessions (manual, scheduled and Pomodoro, some overlapping, some ended early),
completed Pomodoro phases, blocked attempts of sites and apps (with their quarter-hour sums,
as the daemon keeps them: per quarter hour, per UTC day and month) and a few early ends.

Synthetic data, for measuring only: it is never shipped or shown as real. The database must
exist already (start simplylockd once on the root: it creates and migrates it); the daemon
must not be running while this writes.

Usage: gen-insights-history.py STATE.sqlite [--sessions N] [--attempts N] [--days N] [--seed N]
"""
import argparse
import random
import sqlite3
import time
from datetime import datetime, timezone

QUARTER = 900
DAY = 86_400


def month_of_day(day):
    """Months since January 1970 of a UTC day (days since 1970)."""
    date = datetime.fromtimestamp(day * DAY, timezone.utc)
    return (date.year - 1970) * 12 + date.month - 1


def grdb_date(seconds):
    """Dates as GRDB stores them: UTC, `YYYY-MM-DD HH:MM:SS.SSS`."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--seed", type=int, default=13)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    now = time.time()
    start = now - options.days * 86_400
    profiles = ["deep-work", "social", "news", "video", "gaming", "shopping"]
    origins = ["manual", "schedule:mornings", "schedule:evenings", "pomodoro"]

    db = sqlite3.connect(options.database)
    db.execute("PRAGMA journal_mode = WAL")
    with db:
        history = []
        focus = []
        unlocks = []
        for index in range(options.sessions):
            begin = start + rng.random() * (now - start - 7200)
            length = rng.choice([25 * 60, 45 * 60, 60 * 60, 90 * 60, 120 * 60]) * rng.uniform(0.8, 1.2)
            origin = rng.choice(origins)
            strict = rng.random() < 0.3
            planned = begin + length
            reason = "expired"
            ended = planned
            if rng.random() < 0.1:
                ended = begin + length * rng.random()
                reason = "stopped"
            if strict and rng.random() < 0.01:
                ended = begin + length * rng.random()
                reason = "unlocked"
            session = f"syn{index:09d}"
            profile = rng.choice(profiles)
            history.append((session, profile, origin, strict, grdb_date(begin), grdb_date(planned), grdb_date(ended), reason,
                            rng.randint(5, 200)))
            if origin == "pomodoro" and reason == "expired":
                focus.append((session, profile, 1, 4, grdb_date(begin), grdb_date(ended), ended - begin))
            if reason == "unlocked":
                unlocks.append((session, profile, grdb_date(ended), 0, "synthetic-boot"))
        db.executemany("INSERT INTO history (id, profile, origin, strict, startedAt, plannedEnd, endedAt, endReason, blockedNames) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", history)
        db.executemany("INSERT INTO pomodoroFocus (run, profile, cycle, cycles, startedAt, endedAt, focusedSeconds) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", focus)
        db.executemany("INSERT INTO emergencyUnlock (session, profile, at, bootNanoseconds, bootID) VALUES (?, ?, ?, ?, ?)", unlocks)

        # A long tail of names, a few tried far more often than the rest.
        sites = [f"site{n:03d}.example" for n in range(300)]
        site_weights = [1 / (n + 1) for n in range(len(sites))]
        apps = [f"app{n:02d}" for n in range(30)]
        quarters, days, months = {}, {}, {}
        rows = []
        for _ in range(options.attempts):
            # Mostly in the daytime (08:00–22:00 UTC), as people are.
            day = int(start // 86_400) + rng.randrange(options.days)
            at = day * 86_400 + rng.uniform(8 * 3600, 22 * 3600)
            if at >= now:
                at = now - rng.uniform(1, 86_400)
            if rng.random() < 0.95:
                kind, name = "site", rng.choices(sites, site_weights)[0]
                rows.append((at, kind, name, name, rng.choice(profiles), "dns", "127.0.0.1", 1))
            else:
                kind, name = "app", rng.choice(apps)
                rows.append((at, kind, name, f"/usr/bin/{name}", None, "apps", f"pid {rng.randint(100, 99999)}", 1))
            quarters[(int(at // QUARTER), kind)] = quarters.get((int(at // QUARTER), kind), 0) + 1
            day_key = (int(at // DAY), kind, name)
            days[day_key] = days.get(day_key, 0) + 1
            if len(rows) >= 100_000:
                db.executemany("INSERT INTO attempt (at, kind, name, detail, profile, source, client, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
                rows.clear()
        db.executemany("INSERT INTO attempt (at, kind, name, detail, profile, source, client, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        for (day, kind, name), count in days.items():
            key = (month_of_day(day), kind, name)
            months[key] = months.get(key, 0) + count
        # The sums as the daemon keeps them (StateStore.recordAttempts).
        db.executemany("INSERT INTO attemptQuarter (bucket, kind, count) VALUES (?, ?, ?)",
                       [(b, k, c) for (b, k), c in quarters.items()])
        db.executemany("INSERT INTO attemptDay (day, kind, name, count) VALUES (?, ?, ?, ?)",
                       [(d, k, n, c) for (d, k, n), c in days.items()])
        db.executemany("INSERT INTO attemptMonth (month, kind, name, count) VALUES (?, ?, ?, ?)",
                       [(m, k, n, c) for (m, k, n), c in months.items()])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"{len(history)} sessions, {len(focus)} pomodoros, {options.attempts} attempts "
          f"({len(quarters)} quarter-hour, {len(days)} daily and {len(months)} monthly sums), "
          f"{len(unlocks)} early ends over {options.days} days")


if __name__ == "__main__":
    main()
