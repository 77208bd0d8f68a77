-- wrk: each thread (one visitor) starts $ROCKET_BENCH_CONVERSATIONS (default 64) conversations of
-- the loop flow and taps them in turn,
-- so that one conversation rarely has two taps in flight: what several instances behind a proxy
-- without sticky sessions see from many visitors. Taps another request beat are answered 409
-- (counted by wrk as non-2xx). The visitors' tokens come from $ROCKET_BENCH_TOKENS.
local convs = {}
local wanted = tonumber(os.getenv("ROCKET_BENCH_CONVERSATIONS") or "64")
local pending = 0
local next_tap = 0
local visitor = nil

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  visitor = tokens[math.random(1, #tokens)]
end

function request()
  if #convs + pending < wanted then
    pending = pending + 1
    return wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
      '{"flow": "loop", "reducedMotion": true}')
  end
  if #convs == 0 then
    return wrk.format("GET", "/healthz")
  end
  next_tap = next_tap % #convs + 1
  return wrk.format("POST", "/v1/conversations/" .. convs[next_tap] .. "/intents",
    {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor}, '{"intent": "tap"}')
end

function response(status, headers, body)
  if status == 201 then
    local id = string.match(body, '"id":"(%x+)"')
    if id then convs[#convs + 1] = id end
    pending = pending - 1
  end
end
