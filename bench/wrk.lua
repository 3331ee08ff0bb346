-- The HTTP load of bench/wrk.ts: one POST, its body and headers from the environment
-- (WRK_SESSION: in that MCP session, each request with an id of its own),
-- every answer checked for a marker (WRK_EXPECT); WRK_DELAY_MS paces each connection
-- (the half-rate phase). done() prints one JSON line the bench reads.
local threads = {}
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
local auth = os.getenv("WRK_AUTH")
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end
local expect = os.getenv("WRK_EXPECT")
local pause = tonumber(os.getenv("WRK_DELAY_MS") or "0")

-- WRK_SESSION: requests of one MCP session need ids of their own (JSON-RPC: the server
-- tells answers apart by id), so each request's `"id":1` is made unique per thread
local session = os.getenv("WRK_SESSION")
local unique = session and session ~= ""
if unique then wrk.headers["Mcp-Session-Id"] = session end

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  bad = 0
  sent = 0
end

if unique then
  function request()
    sent = sent + 1
    local body = string.gsub(wrk.body, '"id":1,', '"id":' .. (tid * 1000000000 + sent) .. ',', 1)
    return wrk.format(nil, nil, nil, body)
  end
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, expect, 1, true) then bad = bad + 1 end
end

if pause > 0 then
  function delay() return pause end
end

function done(summary, latency, requests)
  local failed = 0
  for _, t in ipairs(threads) do failed = failed + t:get("bad") end
  local e = summary.errors
  failed = failed + e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50":%d,"p99":%d,"failed":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), failed))
end
