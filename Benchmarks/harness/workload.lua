-- wrk script shared by every workload and both servers.
-- Configuration comes from environment variables set by Benchmarks/run:
--   BENCH_SERVER    stratus | pocketbase | kinto (Benchmarks/postgres)
--   BENCH_WORKLOAD  create | batch | lookup | query | health
--   BENCH_PREFIX    Stratus: /database/1/<container>/development/public ; PocketBase: /api ;
--                   Kinto: /v1/buckets/<bucket>/collections/<collection>
--   BENCH_TOKEN     Stratus API token (unused for PocketBase)
--   BENCH_USER      the signed-in user: Stratus web auth token, percent-encoded (public creates
--                   need a signed-in user); PocketBase user auth token, sent as Authorization
--                   (empty with --pb-auth none); Kinto: a basic Authorization header value
--   BENCH_KEYS      number of seeded records with known names (lookups pick among them)
--   BENCH_GENRES    number of distinct genre values
--   BENCH_BATCH     operations per batch request
-- done() prints one line "BENCH_RESULT {json}" that the harness parses.

local server   = os.getenv("BENCH_SERVER")
local workload = os.getenv("BENCH_WORKLOAD")
local prefix   = os.getenv("BENCH_PREFIX") or ""
local token    = os.getenv("BENCH_TOKEN") or ""
local user     = os.getenv("BENCH_USER") or ""
local keys     = tonumber(os.getenv("BENCH_KEYS") or "1")
local genres   = tonumber(os.getenv("BENCH_GENRES") or "100")
local batchN   = tonumber(os.getenv("BENCH_BATCH") or "200")

local threads = {}
local nextId = 1

function setup(thread)
  thread:set("tid", nextId)
  table.insert(threads, thread)
  nextId = nextId + 1
end

-- Per-thread state (each wrk thread has its own Lua environment).
local pool = {}
local poolIndex = 0
local headers = { ["Content-Type"] = "application/json" }
-- The health check stays anonymous on both servers: it is the HTTP floor, without credentials.
local anonymousHeaders = { ["Content-Type"] = "application/json" }
if (server == "pocketbase" or server == "kinto") and user ~= "" then headers["Authorization"] = user end

local function stratusPath(endpoint)
  return prefix .. "/records/" .. endpoint .. "?ckAPIToken=" .. token .. "&ckWebAuthToken=" .. user
end

local function stratusCreateOp(genre, rating, title)
  return string.format(
    '{"operationType":"create","record":{"recordType":"Item","fields":{"title":{"value":"%s"},"genre":{"value":"g%d"},"rating":{"value":%d}}}}',
    title, genre, rating)
end

local function pocketbaseFields(genre, rating, title)
  return string.format('{"title":"%s","genre":"g%d","rating":%d}', title, genre, rating)
end

-- Bodies for writes are generated once per thread: the server assigns record names,
-- so a body can be sent many times. The pool varies genre and rating.
local function buildWritePool()
  local size = (workload == "batch") and 16 or 256
  for i = 1, size do
    local parts = {}
    local count = (workload == "batch") and batchN or 1
    for j = 1, count do
      local genre = math.random(0, genres - 1)
      local rating = math.random(0, 999)
      local title = string.format("bench item %d-%d-%d", tid, i, j)
      if server == "stratus" then
        parts[j] = stratusCreateOp(genre, rating, title)
      elseif server == "kinto" then
        parts[j] = '{"data":' .. pocketbaseFields(genre, rating, title) .. '}'
        if workload == "batch" then parts[j] = '{"body":' .. parts[j] .. '}' end
      elseif workload == "batch" then
        parts[j] = '{"method":"POST","url":"/api/collections/items/records","body":' ..
          pocketbaseFields(genre, rating, title) .. '}'
      else
        parts[j] = pocketbaseFields(genre, rating, title)
      end
    end
    local body
    if server == "stratus" then
      body = '{"operations":[' .. table.concat(parts, ",") .. ']}'
      pool[i] = wrk.format("POST", stratusPath("modify"), headers, body)
    elseif server == "kinto" and workload == "batch" then
      -- /v1/batch sits beside /v1/buckets; subrequest paths are relative to /v1
      body = '{"defaults":{"method":"POST","path":"' .. string.sub(prefix, 4) .. '/records"},"requests":[' ..
        table.concat(parts, ",") .. ']}'
      pool[i] = wrk.format("POST", "/v1/batch", headers, body)
    elseif server == "kinto" then
      pool[i] = wrk.format("POST", prefix .. "/records", headers, parts[1])
    elseif workload == "batch" then
      body = '{"requests":[' .. table.concat(parts, ",") .. ']}'
      pool[i] = wrk.format("POST", prefix .. "/batch", headers, body)
    else
      pool[i] = wrk.format("POST", prefix .. "/collections/items/records", headers, parts[1])
    end
  end
end

function init(args)
  math.randomseed(os.time() * 1000 + tid * 7919)
  errors = 0
  appErrors = 0
  sample = ""
  if workload == "create" or workload == "batch" then
    buildWritePool()
  end
end

-- Record names used when seeding (must match harness/seed.py).
local function stratusName(i) return string.format("item-%07d", i) end
local function pocketbaseId(i) return string.format("i%014d", i) end

function request()
  if workload == "create" or workload == "batch" then
    poolIndex = poolIndex % #pool + 1
    return pool[poolIndex]
  elseif workload == "health" then
    -- Each server's cheapest request (no database): the floor of its HTTP stack.
    if server == "stratus" then
      return wrk.format("GET", "/health", anonymousHeaders)
    else
      return wrk.format("GET", prefix .. "/health", anonymousHeaders)
    end
  elseif workload == "lookup" then
    local i = math.random(0, keys - 1)
    if server == "stratus" then
      return wrk.format("POST", stratusPath("lookup"), headers,
        '{"records":[{"recordName":"' .. stratusName(i) .. '"}]}')
    elseif server == "kinto" then
      -- Kinto records were seeded with Stratus's record names as ids
      return wrk.format("GET", prefix .. "/records/" .. stratusName(i), headers)
    else
      return wrk.format("GET", prefix .. "/collections/items/records/" .. pocketbaseId(i), headers)
    end
  else -- query
    local g = math.random(0, genres - 1)
    if server == "stratus" then
      return wrk.format("POST", stratusPath("query"), headers, string.format(
        '{"query":{"recordType":"Item","filterBy":[{"fieldName":"genre","comparator":"EQUALS","fieldValue":{"value":"g%d"}}],' ..
        '"sortBy":[{"fieldName":"rating","ascending":false}]},"resultsLimit":50}', g))
    elseif server == "kinto" then
      return wrk.format("GET", string.format("%s/records?genre=g%d&_sort=-rating&_limit=50", prefix, g), headers)
    else
      return wrk.format("GET", string.format(
        "%s/collections/items/records?filter=genre%%3D%%27g%d%%27&sort=-rating&perPage=50&skipTotal=1", prefix, g), headers)
    end
  end
end

-- A response is an error when its status is not 200 (201 for a Kinto create), or when a CKWS
-- 200 response carries a per-record error element (serverErrorCode), or a PocketBase or Kinto
-- batch element failed.
function response(status, hdrs, body)
  local bad = status ~= 200
  -- Kinto answers a created record with 201; a batch's failed subrequest shows its status inside
  if server == "kinto" and status == 201 and workload == "create" then bad = false end
  if not bad and server == "kinto" and workload == "batch" and
     string.find(body, '"status":%s*[45]%d%d') then
    bad = true
    appErrors = appErrors + 1
  end
  if not bad and server == "stratus" and string.find(body, '"serverErrorCode"', 1, true) then
    bad = true
    appErrors = appErrors + 1
  end
  if not bad and server == "pocketbase" and workload == "batch" and
     not string.find(body, '^%[{"body"') then
    bad = true
    appErrors = appErrors + 1
  end
  if bad then
    errors = errors + 1
    if sample == "" then sample = status .. " " .. string.sub(body or "", 1, 300) end
  end
end

local function jsonString(s)
  s = string.gsub(s, '[%c"\\]', function(c) return string.format("\\u%04x", string.byte(c)) end)
  return '"' .. s .. '"'
end

function done(summary, latency, requests)
  local errs, appErrs, firstSample = 0, 0, ""
  for _, t in ipairs(threads) do
    errs = errs + (t:get("errors") or 0)
    appErrs = appErrs + (t:get("appErrors") or 0)
    local s = t:get("sample") or ""
    if firstSample == "" then firstSample = s end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"max_us":%d,"mean_us":%.1f,"connect_errors":%d,"read_errors":%d,"write_errors":%d,' ..
    '"status_errors":%d,"timeouts":%d,"bad_responses":%d,"app_errors":%d,"sample":%s}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean, e.connect, e.read, e.write, e.status, e.timeout,
    errs, appErrs, jsonString(firstSample)))
end
