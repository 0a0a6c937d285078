-- wrk script of bench/load.py: POST /graphql with bodies from $WRK_BODIES (one JSON request a
-- line), each drawn at random, so every level asks the same mix of them whatever its number of
-- connections (see `request`); an answer refused OVERLOADED
-- (the admission queue is full: api/front_door/admission.py) is counted apart; any other non-200 answer or
-- one whose body holds "errors" is an error; at the end one JSON line of figures (latency in µs).
-- A refusal's `Retry-After` is honoured, as the contract asks of clients: the thread's next
-- request waits that long (`delay`, called by wrk before each request of the thread). wrk's
-- script sees threads, not connections: bench/load.py runs one thread per connection, so the
-- refused connection is the one that waits. WRK_IGNORE_RETRY_AFTER=1 sends again at once
-- instead, like a naive retry loop.
local bodies = {}
for line in io.lines(os.getenv("WRK_BODIES")) do
  bodies[#bodies + 1] = line
end

threads = {}

function setup(thread)
  thread:set("seed", #threads + 1)
  table.insert(threads, thread)
end

waits = {}  -- milliseconds each refused request's client must wait, oldest first
honour_retry_after = os.getenv("WRK_IGNORE_RETRY_AFTER") ~= "1"
errors = 0
overloaded = 0
answered = 0

function init(args)
  math.randomseed(seed or 1)  -- each thread its own sequence, the same in every run
end

-- WRK_AUTHORIZATION, when set, is sent as the Authorization header (run_wrk's `authorization`).
headers = { ["Content-Type"] = "application/json" }
if os.getenv("WRK_AUTHORIZATION") then
  headers["Authorization"] = os.getenv("WRK_AUTHORIZATION")
end

-- Each request's body is drawn uniformly from all of them. Walking the list from a place per
-- thread made the levels ask different mixes: 8 connections asked mostly what the levels before
-- had asked, already in the service's query-vector cache, and 32 connections asked more that
-- was not, with other answers' sizes; the service's CPU per answer differed by level for that
-- alone (bench/measured-apart.md, "The front door").
function request()
  local body = bodies[math.random(#bodies)]
  return wrk.format("POST", "/graphql", headers, body)
end

function delay()
  if #waits == 0 then
    return 0
  end
  return table.remove(waits, 1)
end

function response(status, headers, body)
  answered = answered + 1
  if string.find(body, '"OVERLOADED"', 1, true) then
    overloaded = overloaded + 1
    local seconds = tonumber(headers["Retry-After"] or headers["retry-after"] or "")
    if honour_retry_after and seconds then
      waits[#waits + 1] = math.floor(seconds * 1000)
    end
  elseif status ~= 200 or string.find(body, '"errors"', 1, true) then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local failed, checked, refused = 0, 0, 0
  for _, thread in ipairs(threads) do
    failed = failed + thread:get("errors")
    checked = checked + thread:get("answered")
    refused = refused + thread:get("overloaded")
  end
  local e = summary.errors
  io.write(string.format(
    '\nWRK_JSON {"requests": %d, "duration_us": %d, "answered": %d, "graphql_errors": %d,'
      .. ' "overloaded": %d,'
      .. ' "connect_errors": %d, "read_errors": %d, "write_errors": %d, "status_errors": %d,'
      .. ' "timeouts": %d, "p50_us": %d, "p95_us": %d, "p99_us": %d, "max_us": %d,'
      .. ' "mean_us": %.1f}\n',
    summary.requests, summary.duration, checked, failed, refused, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(95), latency:percentile(99),
    latency.max, latency.mean))
end
