-- wrk: each thread (one visitor) starts a conversation of the loop flow, sends it 30 taps, then
-- starts another. Run the server with a --rate that does not throttle. The visitors' tokens come
-- from $ROCKET_BENCH_TOKENS (separated by spaces; POST /v1/visitors made them).
local current = nil
local sent = 0
local visitor = nil

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  visitor = tokens[math.random(1, #tokens)]
end

local starting = false

local function start()
  return wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
    '{"flow": "loop", "reducedMotion": true}')
end

function request()
  -- A new conversation after every 30 taps; until its id arrives the others keep tapping the old
  -- one, so one start in about 31 requests, as described.
  if current == nil then return start() end
  if sent >= 30 and not starting then
    starting = true
    return start()
  end
  sent = sent + 1
  return wrk.format("POST", "/v1/conversations/" .. current.id .. "/intents",
    {["Content-Type"] = "application/json", ["Rocket-Visitor"] = current.visitor}, '{"intent": "tap"}')
end

function response(status, headers, body)
  if status == 201 then
    local id = string.match(body, '"id":"(%x+)"')
    if id then
      current = {id = id, visitor = visitor}
      sent = 0
      starting = false
    end
  end
end
