#!/usr/bin/env node
// Thin launcher: everything lives in the compiled CLI.
import { main } from '../dist/src/cli.js';

main(process.argv);
