-- Quotes a value for an error message: one line of ASCII, every byte outside 0x20-0x7e
-- and ' and \ written as \xNN, exactly as the native module does (docs/wire.md).
local function quote(value)
  return "'" .. string.gsub(value, "[%z\1-\31'\\\127-\255]", function(ch)
    return string.format("\\x%02x", string.byte(ch))
  end) .. "'"
end
