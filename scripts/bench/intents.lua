-- wrk: each thread (one visitor) starts a conversation of the loop flow, sends it 30 taps, then
-- starts another. Run the server with a --rate that does not throttle. The visitors' tokens come
-- from $ROCKET_BENCH_TOKENS (separated by spaces; POST /v1/visitors made them).
-- Each request's bytes are made once (the start's per thread, the tap's per conversation), so
-- wrk spends on formatting no more than it does for a static file.
local current = nil
local sent = 0
local starting = false
local start, tap = nil, nil

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  local visitor = tokens[math.random(1, #tokens)]
  start = wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
    '{"flow": "loop", "reducedMotion": true}')
  -- A tap names the visitor too: the conversation is this thread's visitor's.
  tap = function(id)
    return wrk.format("POST", "/v1/conversations/" .. id .. "/intents",
      {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor}, '{"intent": "tap"}')
  end
end

function request()
  -- A new conversation after every 30 taps; until its id arrives the others keep tapping the old
  -- one, so one start in about 31 requests, as described.
  if current == nil then return start end
  if sent >= 30 and not starting then
    starting = true
    return start
  end
  sent = sent + 1
  return current
end

function response(status, headers, body)
  if status == 201 then
    local id = string.match(body, '"id":"(%x+)"')
    if id then
      current = tap(id)
      sent = 0
      starting = false
    end
  end
end
