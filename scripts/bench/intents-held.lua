-- As intents.lua, but each tap names the newest view the thread has seen (Rocket-Settled), as the
-- widget does: answers leave out the transcript items that view settled.
local current = nil
local sent = 0
local starting = false
local start, tap = nil, nil
local id, version, settled, stale = nil, -1, 0, false

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  local visitor = tokens[math.random(1, #tokens)]
  start = wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
    '{"flow": "loop", "reducedMotion": true}')
  tap = function(id, held)
    return wrk.format("POST", "/v1/conversations/" .. id .. "/intents",
      {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor, ["Rocket-Settled"] = held}, '{"intent": "tap"}')
  end
end

function request()
  if current == nil then return start end
  if sent >= 30 and not starting then
    starting = true
    return start
  end
  sent = sent + 1
  if stale then
    current = tap(id, version .. "/" .. settled)
    stale = false
  end
  return current
end

function response(status, headers, body)
  if status == 201 then
    local new = string.match(body, '"id":"(%x+)"')
    if new then
      id = new
      version = tonumber(string.match(body, '"version":(%d+)'))
      settled = tonumber(string.match(body, '"settled":(%d+)'))
      current = tap(id, version .. "/" .. settled)
      sent = 0
      starting = false
    end
  elseif status == 200 then
    local v = tonumber(string.match(body, '"version":(%d+)'))
    if v and v > version and string.match(body, '"id":"(%x+)"') == id then
      version = v
      settled = tonumber(string.match(body, '"settled":(%d+)'))
      stale = true
    end
  end
end
