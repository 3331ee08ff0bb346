-- The HTTP load of bench/wrk.ts: one POST, its body and headers from the environment,
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

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
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
