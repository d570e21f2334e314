#!/usr/bin/env node
// The published entry point: the CLI from the built bundle.
import "../dist/cli.js";
