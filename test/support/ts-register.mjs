// `node --import ./ts-register.mjs worker.mjs`: lets a worker import the project's .ts sources.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
