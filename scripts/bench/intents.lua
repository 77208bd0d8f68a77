-- wrk: each thread (one visitor) starts a conversation of the loop flow, sends it 30 taps, then
-- starts another. Run the server with a --rate that does not throttle. The visitors' tokens come
-- from $ROCKET_BENCH_TOKENS (separated by spaces; POST /v1/visitors made them).
-- Each request's bytes are made once (the start's per thread, the tap's per conversation), so
-- wrk spends on formatting no more than it does for a static file.
-- With $ROCKET_BENCH_HELD set, each tap names the newest view the thread has seen
-- (Rocket-Settled), as the widget does: answers leave out the transcript items that view settled
-- (the tap is then made again whenever a newer view arrives).
local current = nil
local sent = 0
local starting = false
local start, tap = nil, nil
local held = os.getenv("ROCKET_BENCH_HELD") ~= nil
local id, version, settled, stale = nil, -1, 0, false

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  local visitor = tokens[math.random(1, #tokens)]
  start = wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
    '{"flow": "loop", "reducedMotion": true}')
  -- A tap names the visitor too: the conversation is this thread's visitor's.
  tap = function()
    local headers = {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor}
    if held then headers["Rocket-Settled"] = version .. "/" .. settled end
    return wrk.format("POST", "/v1/conversations/" .. id .. "/intents", headers, '{"intent": "tap"}')
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
  if stale then
    current = tap()
    stale = false
  end
  return current
end

-- The view an answer holds, when it is newer than the one the thread has seen.
local function seen(body)
  local v = tonumber(string.match(body, '"version":(%d+)'))
  if v and v > version then
    version = v
    settled = tonumber(string.match(body, '"settled":(%d+)')) or 0
    return true
  end
  return false
end

function response(status, headers, body)
  if status == 201 then
    local new = string.match(body, '"id":"(%x+)"')
    if new then
      id, version, settled = new, -1, 0
      if held then seen(body) end
      current = tap()
      sent = 0
      starting = false
    end
  elseif held and status == 200 and string.match(body, '"id":"(%x+)"') == id then
    stale = seen(body) or stale
  end
end
