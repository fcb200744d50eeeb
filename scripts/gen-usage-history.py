#!/usr/bin/env python3
"""Fills a simplylockd state database with a year of synthetic usage for the usage benchmark:
attributed minutes (usageMinute) and their quarter-hour sums (usageQuarter), as the daemon keeps
them: about 8 hours a day of apps (20 apps in 5 categories), 3 hours of sites (30 names) and
4 hours each of 3 LAN device groups.

Synthetic data, for measuring only: it is never shipped or shown as real. The database must
exist already (start simplylockd once on the root: it creates and migrates it); the daemon
must not be running while this writes.

Usage: gen-usage-history.py STATE.sqlite [--days N] [--seed N]
"""
import argparse
import random
import sqlite3
import time

CATEGORIES = ["Game", "Network", "Office", "AudioVideo", "Development"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    apps = [(f"app{i:02d}", CATEGORIES[i % len(CATEGORIES)]) for i in range(20)]
    sites = [(f"site{i:02d}.example", None) for i in range(30)]
    groups = ["kids", "office", "guests"]
    now_minute = int(time.time() // 60)
    first_day = now_minute // 1440 - args.days
    minutes = []
    for day in range(first_day, first_day + args.days):
        base = day * 1440
        # Sessions of use: a run of minutes on one item, then another.
        for kind, names, hours in [("app", apps, 8), ("site", sites, 3)] + [("group", [(g, None)], 4) for g in groups]:
            cursor = base + rng.randrange(6 * 60, 10 * 60)
            left = hours * 60
            while left > 0:
                run = min(left, rng.randrange(5, 90))
                name = rng.choice(names)
                for minute in range(cursor, cursor + run):
                    meter = {"app": "apps-active", "site": "dns", "group": "lan-dns"}[kind]
                    minutes.append((minute, kind, name[0], name[1], meter, 60))
                cursor += run + rng.randrange(0, 30)
                left -= run
    db = sqlite3.connect(args.database)
    db.execute("PRAGMA synchronous = OFF")
    db.executemany("INSERT OR REPLACE INTO usageMinute (minute, kind, name, category, meter, seconds) VALUES (?, ?, ?, ?, ?, ?)", minutes)
    db.execute(
        """INSERT INTO usageQuarter (kind, bucket, name, category, seconds)
           SELECT kind, minute / 15, name, category, SUM(seconds) FROM usageMinute GROUP BY kind, minute / 15, name
           ON CONFLICT (kind, bucket, name) DO UPDATE SET seconds = excluded.seconds""")
    db.commit()
    quarters = db.execute("SELECT COUNT(*) FROM usageQuarter").fetchone()[0]
    db.close()
    print(f"{len(minutes)} minutes, {quarters} quarter-hour sums over {args.days} days")


if __name__ == "__main__":
    main()
