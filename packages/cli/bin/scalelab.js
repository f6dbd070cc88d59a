#!/usr/bin/env node
// The CLI is TypeScript run as it is (tsx), like the worker: no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
