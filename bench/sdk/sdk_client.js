#!/usr/bin/env node
// One process of a `loadgen exec` fleet that streams through an official LLM SDK, as an app
// would: the SDK's stream helper, its defaults but for maxRetries, its final message read at
// the end. bench/sdk/run.sh runs it against fakeprovider and checks what each client saw
// against what the provider sent (issue 41).
//
//   loadgen exec --clients N --per-process K ... -- node sdk_client.js openai|anthropic
//
// Runs STAMPEDE_PER_PROCESS clients at once (run.sh: one a process, so that loadgen exec's
// delivered and dead-lettered are the streams' own outcomes), ids from STAMPEDE_CLIENT_ID on, each with its own
// SDK client pointed at STAMPEDE_URL and naming itself in X-Client-Id, each streaming one
// answer of max_tokens maxTokensOf(id). Writes one JSON record a client to
// SDK_RECORDS/ID.json: the text deltas the SDK yielded, the SDK's final usage, how the
// stream ended (completed, or the error's class, status and type), and what the SDK logged
// (a warning or an error while parsing is a byte it did not take), and every HTTP response
// the SDK's fetch got (sends: when it was sent, when the SDK had it, its status, its rate-limit
// headers, a refusal's body), so check.py can hold the SDK's retry waits against the hints.
// Exits 0 when every one of its streams completed, 1 otherwise: loadgen exec dead-letters
// those clients. The --wait-ready handshake is bench/clients/node_fleet.js's.
//
// SDK_MAX_TOKENS_SCALE multiplies each client's max_tokens (run.sh MODE=limits: large
// reservations against the output-token limit); SDK_MODELS, comma-separated, names the model
// by client (id modulo their count).
'use strict';

const fs = require('fs');
const path = require('path');
const {performance, monitorEventLoopDelay} = require('perf_hooks');
const {readyAndWait} = require('../clients/node_fleet.js');

const URL = process.env.STAMPEDE_URL;
const FIRST = Number(process.env.STAMPEDE_CLIENT_ID);
const COUNT = Number(process.env.STAMPEDE_PER_PROCESS || 1);
const RECORDS = process.env.SDK_RECORDS;
const RETRIES = Number(process.env.SDK_MAX_RETRIES || 8);
const TIMEOUT_MS = 120000; // far beyond any stream of the bench: no call ends on it
const SCALE = Number(process.env.SDK_MAX_TOKENS_SCALE || 1);

// Some below the provider's --output-tokens and some above, so the bound shows in the usage.
function maxTokensOf(id) {
  return SCALE * (4 + (id % 16));
}

function modelOf(id, fallback) {
  const models = (process.env.SDK_MODELS || '').split(',').filter(Boolean);
  return models.length ? models[id % models.length] : fallback;
}

// How late this process's timers ran (the SDK's retry sleep is one): the tolerance check.py
// grants a wait beyond the hint.
const loopDelay = monitorEventLoopDelay({resolution: 5});
loopDelay.enable();

// Milliseconds on one clock for the whole process.
function nowMs() {
  return performance.timeOrigin + performance.now();
}

const RECORDED_HEADERS = /^(retry-after|retry-after-ms|x-should-retry|x-ratelimit-.*|anthropic-ratelimit-.*)$/;

// The SDK's fetch, recording each send: sent_ms when the SDK called it, got_ms when the
// response went back to the SDK (its retry sleep starts after that), the status, the
// rate-limit headers, and a refusal's body (read from a clone, so the SDK still reads its own).
function recordingFetch(record) {
  return async (url, init) => {
    const send = {sent_ms: nowMs()};
    record.sends.push(send);
    const retryCount = new Headers(init && init.headers).get('x-stainless-retry-count');
    send.retry_count = retryCount === null ? null : Number(retryCount);
    let response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      send.got_ms = nowMs();
      send.error = String(e && e.message);
      throw e;
    }
    send.status = response.status;
    send.headers = {};
    for (const [name, value] of response.headers) {
      if (RECORDED_HEADERS.test(name)) send.headers[name] = value;
    }
    if (response.status !== 200) send.body = await response.clone().text().catch((e) => `(unread: ${e})`);
    send.got_ms = nowMs();
    return response;
  };
}

// What the SDK logs, per process: it logs through console when a stream has a byte it cannot
// parse. A record counts the lines logged while its stream was read (streams interleave, so
// run.sh checks the sum).
const logged = [];
for (const level of ['warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    logged.push(`${level}: ${args.map(String).join(' ')}`);
    original(...args);
  };
}

function describeError(e, sdk) {
  const out = {class: e && e.constructor ? e.constructor.name : typeof e, message: String(e && e.message)};
  if (sdk.APIError && e instanceof sdk.APIError) {
    out.api_error = true;
    out.status = e.status === undefined ? null : e.status;
    // anthropic: error.error.type of the event's body; openai: error.type
    out.type = (e.error && e.error.error && e.error.error.type) || (e.error && e.error.type) || e.type || null;
  }
  if (e && e.cause) out.cause = String(e.cause.message || e.cause);
  return out;
}

const streamers = {
  openai(id, record) {
    const OpenAI = require('openai');
    const client = new OpenAI({
      apiKey: 'sk-stampede-bench', baseURL: URL, maxRetries: RETRIES, timeout: TIMEOUT_MS,
      defaultHeaders: {'X-Client-Id': String(id)}, fetch: recordingFetch(record),
    });
    return {
      sdk: OpenAI,
      async run(record) {
        const stream = client.chat.completions.stream({
          model: record.model, messages: [{role: 'user', content: 'hello'}],
          max_completion_tokens: record.max_tokens, stream_options: {include_usage: true},
        });
        for await (const chunk of stream) {
          for (const choice of chunk.choices) {
            if (choice.delta && choice.delta.content) ++record.deltas;
            if (choice.finish_reason) record.finish_reason = choice.finish_reason;
          }
        }
        const final = await stream.finalChatCompletion();
        record.usage = final.usage || null;
        record.output_tokens = final.usage ? final.usage.completion_tokens : null;
      },
    };
  },
  anthropic(id, record) {
    const Anthropic = require('@anthropic-ai/sdk');
    const client = new Anthropic({
      apiKey: 'sk-ant-stampede-bench', baseURL: URL, maxRetries: RETRIES, timeout: TIMEOUT_MS,
      defaultHeaders: {'X-Client-Id': String(id)}, fetch: recordingFetch(record),
    });
    return {
      sdk: Anthropic,
      async run(record) {
        const stream = client.messages.stream({
          model: record.model, max_tokens: record.max_tokens,
          messages: [{role: 'user', content: 'hello'}],
        });
        for await (const event of stream) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') ++record.deltas;
        }
        const final = await stream.finalMessage();
        record.usage = final.usage;
        record.output_tokens = final.usage.output_tokens;
        record.finish_reason = final.stop_reason;
      },
    };
  },
};

const DEFAULT_MODELS = {openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5'};

function newRecord(sdkName, id) {
  return {client: id, sdk: sdkName, model: modelOf(id, DEFAULT_MODELS[sdkName]), max_tokens: maxTokensOf(id),
    deltas: 0, outcome: 'completed', sends: []};
}

// One client's stream, through the SDK client object built before the release.
async function one(record, streamer) {
  const before = logged.length;
  try {
    await streamer.run(record);
  } catch (e) {
    record.outcome = 'error';
    record.error = describeError(e, streamer.sdk);
  }
  record.logged = logged.slice(before);
  record.loop_delay_max_ms = loopDelay.max / 1e6;
  fs.writeFileSync(path.join(RECORDS, `${record.client}.json`), JSON.stringify(record) + '\n');
  return record.outcome === 'completed';
}

async function main() {
  const sdk = process.argv[2];
  if (!streamers[sdk]) {
    console.error(`sdk_client.js: SDK '${sdk}' is not one of ${Object.keys(streamers).join(', ')}`);
    return 2;
  }
  if (!URL || !RECORDS || !Number.isInteger(FIRST)) {
    console.error('sdk_client.js: needs STAMPEDE_URL, STAMPEDE_CLIENT_ID (loadgen exec) and SDK_RECORDS');
    return 2;
  }
  const ids = Array.from({length: COUNT}, (_, i) => FIRST + i);
  // Every SDK client built before the release (--wait-ready), so start-up does not spread the
  // first sends.
  const records = ids.map((id) => newRecord(sdk, id));
  const clients = records.map((record) => streamers[sdk](record.client, record));
  await readyAndWait();
  loopDelay.reset(); // start-up is not the SDK's sleeps
  const ok = await Promise.all(records.map((record, i) => one(record, clients[i])));
  return ok.every(Boolean) ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`sdk_client.js: ${e && e.stack}`);
  process.exit(1);
});
