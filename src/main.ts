#!/usr/bin/env bun
import { runCli } from "./cli";

// Everything linkshelf creates (the data directory, the database, its WAL and SHM, backups)
// is for its own user only: 0700 directories, 0600 files.
process.umask(0o077);

process.exitCode = await runCli(process.argv.slice(2), process.env);
