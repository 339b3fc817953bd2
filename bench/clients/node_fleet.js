#!/usr/bin/env node
// One process of a `loadgen exec` fleet of a Node SDK, as a service would configure it: the
// library's defaults, retries raised to 8.
//
//   loadgen exec --clients 200 --per-process 20 --wait-ready ... -- node node_fleet.js SDK
//
// SDK is openai, anthropic or dynamodb. Runs STAMPEDE_PER_PROCESS clients at once, client ids
// from STAMPEDE_CLIENT_ID on, each with its own SDK client object pointed at STAMPEDE_URL, each
// making one call and naming itself in X-Client-Id (so the provider's arrival log can be read
// per client). Every client object is built before the release (--wait-ready), so start-up
// does not spread the first sends. Exits 0 when every one of its clients got an answer, 1
// otherwise: loadgen exec counts that as their outcome. The SDKs are found through NODE_PATH
// (bench/clients/run.sh installs them from package-lock.json under the build tree).
'use strict';

const fs = require('fs');

const URL = process.env.STAMPEDE_URL;
const FIRST = Number(process.env.STAMPEDE_CLIENT_ID);
const COUNT = Number(process.env.STAMPEDE_PER_PROCESS);
const RETRIES = 8;
const TIMEOUT_MS = 120000; // far beyond any wait of the storm: no call ends on it

// Each maker returns a function that makes the client's one call.
const makers = {
  openai(id) {
    const OpenAI = require('openai');
    // maxRetries counts retries: 9 sends at most. Authorization: Bearer is not the
    // provider's tenant header, so the fleet is one tenant with one allowance.
    const client = new OpenAI({
      apiKey: 'sk-stampede-bench', baseURL: URL, maxRetries: RETRIES, timeout: TIMEOUT_MS,
      defaultHeaders: {'X-Client-Id': String(id)},
    });
    return () => client.chat.completions.create({
      model: 'gpt-4o-mini', messages: [{role: 'user', content: 'hello'}],
    });
  },
  anthropic(id) {
    const Anthropic = require('@anthropic-ai/sdk');
    // x-api-key is the provider's tenant header: one key for the whole fleet, one allowance.
    const client = new Anthropic({
      apiKey: 'sk-ant-stampede-bench', baseURL: URL, maxRetries: RETRIES, timeout: TIMEOUT_MS,
      defaultHeaders: {'X-Client-Id': String(id)},
    });
    return () => client.messages.create({
      model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{role: 'user', content: 'hello'}],
    });
  },
  dynamodb(id) {
    const {DynamoDBClient, GetItemCommand} = require('@aws-sdk/client-dynamodb');
    // maxAttempts counts the first send: 9 is 8 retries. Dummy credentials: the provider
    // does not check the SigV4 signature.
    const client = new DynamoDBClient({
      region: 'us-east-1', endpoint: URL, maxAttempts: RETRIES + 1,
      credentials: {accessKeyId: 'AKIASTAMPEDEBENCH', secretAccessKey: 'stampede-bench'},
      requestHandler: {requestTimeout: TIMEOUT_MS},
    });
    client.middlewareStack.add((next) => (args) => {
      args.request.headers['x-client-id'] = String(id);
      return next(args);
    }, {step: 'build', name: 'stampedeClientId'});
    const command = new GetItemCommand({TableName: 'bench', Key: {id: {S: String(id)}}});
    return () => client.send(command);
  },
};

// The --wait-ready handshake: one byte to STAMPEDE_READY_FD, then wait for the end of
// STAMPEDE_RELEASE_FD. Without --wait-ready loadgen released the process before it started.
function readyAndWait() {
  const ready = process.env.STAMPEDE_READY_FD;
  if (ready === undefined) return Promise.resolve();
  fs.writeSync(Number(ready), 'r');
  fs.closeSync(Number(ready));
  return new Promise((resolve) => {
    const release = fs.createReadStream(null, {fd: Number(process.env.STAMPEDE_RELEASE_FD)});
    release.on('data', () => {});
    release.on('close', resolve);
  });
}

async function main() {
  const sdk = process.argv[2];
  const make = makers[sdk];
  if (!make) {
    console.error(`node_fleet.js: SDK '${sdk}' is not one of ${Object.keys(makers).join(', ')}`);
    return 2;
  }
  const calls = [];
  for (let i = 0; i < COUNT; i++) calls.push({id: FIRST + i, call: make(FIRST + i)});
  await readyAndWait();
  const ends = await Promise.allSettled(calls.map((c) => c.call()));
  let failed = 0;
  ends.forEach((end, i) => {
    if (end.status === 'fulfilled') return;
    failed++;
    console.error(`client ${calls[i].id}: ${end.reason && end.reason.message}`);
  });
  return failed === 0 ? 0 : 1;
}

// bench/sdk/sdk_client.js takes the handshake from here.
module.exports = {readyAndWait};

if (require.main === module) {
  main().then((code) => process.exit(code), (e) => {
    console.error(`node_fleet.js: ${e && e.stack}`);
    process.exit(1);
  });
}
