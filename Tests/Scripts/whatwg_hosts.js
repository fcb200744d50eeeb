// The reference for LockNamesTests' oracle test: the host that Node's WHATWG URL parser (the
// same standard browsers implement) finds in each input. Input without an http, https, ws, wss or
// ftp scheme gets "http://" in front, as an address bar does.
// Usage: node whatwg_hosts.js INPUT.json OUTPUT.json (a JSON array of strings in; an array of
// {"host": "..."} or {"error": "..."} out, in the same order).
"use strict";
const fs = require("fs");
const inputs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const answers = inputs.map((input) => {
    const text = input.trim();
    const url = /^(https?|wss?|ftp):/i.test(text) ? text : "http://" + text;
    try {
        return { host: new URL(url).hostname };
    } catch (error) {
        return { error: String(error.code || error.message) };
    }
});
fs.writeFileSync(process.argv[3], JSON.stringify(answers));
