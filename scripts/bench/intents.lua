-- wrk: each thread (one visitor) starts a conversation of the loop flow, sends it 30 taps, then
-- starts another; counts answers by status. Run the server with a --rate that does not throttle.
local current = nil
local sent = 0
local statuses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local visitor = nil

function init(args)
  statuses = {}
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  visitor = "bench-" .. tostring(math.random(1, 1e9))
end

local function start()
  current = nil
  sent = 0
  return wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json"},
    '{"flow": "loop", "visitor": "' .. visitor .. '", "reducedMotion": true}')
end

function request()
  if current == nil or sent >= 30 then return start() end
  sent = sent + 1
  return wrk.format("POST", "/v1/conversations/" .. current.id .. "/intents",
    {["Content-Type"] = "application/json", ["Rocket-Visitor"] = current.visitor}, '{"intent": "tap"}')
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 201 then
    local id = string.match(body, '"id":"(%x+)"')
    if id then current = {id = id, visitor = visitor} end
  end
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for k, v in pairs(s) do total[k] = (total[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(total) do table.insert(parts, k .. ":" .. v) end
  io.write("statuses " .. table.concat(parts, " ") .. "\n")
end
