// The minimal streaming peer of bench/provider/streams.sh: a "mock LLM server" as people write
// one in Node.js (http, a setTimeout for the first token, then a setInterval a stream), answering
// POST /v1/messages with Anthropic's stream events, the shape fakeprovider --dialect anthropic
// sends and loadgen run --stream reads. No limits, no allowance: pacing alone.
//
//   node node_streams.js FIRST_TOKEN_MS TOKENS_PER_SECOND [OUTPUT_TOKENS]
//
// Prints "listening on 127.0.0.1:PORT" (an ephemeral port) once it listens.
'use strict';
const http = require('http');

const firstTokenMs = Number(process.argv[2]);
const tokensPerSecond = Number(process.argv[3]);
const outputTokens = process.argv[4] ? Number(process.argv[4]) : Infinity;
if (!(firstTokenMs >= 0) || !(tokensPerSecond > 0) || !(outputTokens > 0)) {
  console.error('usage: node node_streams.js FIRST_TOKEN_MS TOKENS_PER_SECOND [OUTPUT_TOKENS]');
  process.exit(2);
}

function event(name, data) {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function stream(res, maxTokens) {
  const count = Math.min(maxTokens, outputTokens);
  res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
  res.write(event('message_start', {
    type: 'message_start',
    message: {id: 'msg_node', type: 'message', role: 'assistant', model: 'node', content: [],
              stop_reason: null, stop_sequence: null,
              usage: {input_tokens: 10, output_tokens: 0}},
  }) + event('content_block_start',
             {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}}) +
            event('ping', {type: 'ping'}));
  let sent = 0;
  const token = () => {
    res.write(event('content_block_delta', {type: 'content_block_delta', index: 0,
                                           delta: {type: 'text_delta', text: sent ? ' ok' : 'ok'}}));
    if (++sent < count) return false;
    res.end(event('content_block_stop', {type: 'content_block_stop', index: 0}) +
            event('message_delta', {type: 'message_delta',
                                    delta: {stop_reason: 'end_turn', stop_sequence: null},
                                    usage: {output_tokens: count}}) +
            event('message_stop', {type: 'message_stop'}));
    return true;
  };
  setTimeout(() => {
    if (token()) return;
    const interval = setInterval(() => { if (token()) clearInterval(interval); },
                                 1000 / tokensPerSecond);
    res.on('close', () => clearInterval(interval));
  }, firstTokenMs);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/messages') {
    res.writeHead(404).end();
    return;
  }
  let body = '';
  req.on('data', (part) => { body += part; });
  req.on('end', () => {
    let maxTokens;
    try {
      maxTokens = JSON.parse(body).max_tokens;
    } catch (e) {
      maxTokens = undefined;
    }
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      res.writeHead(400, {'Content-Type': 'application/json'}).end(JSON.stringify(
          {type: 'error', error: {type: 'invalid_request_error', message: 'max_tokens'}}));
      return;
    }
    stream(res, maxTokens);
  });
});
server.maxHeadersCount = 100;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on 127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
