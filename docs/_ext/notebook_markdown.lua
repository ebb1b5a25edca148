--[[
Pandoc, for one text block of a gallery page: reStructuredText in, Markdown out.

sphinx-gallery writes each page's notebook and hands pandoc every text block alone
(its `pypandoc` option). Jupyter and Colab show Markdown; this site's Sphinx roles,
targets and heading styles mean nothing there. docs/_ext/notebooks.py gives pandoc
this file twice, because each half needs what the other cannot see:

- as the reader (--from): pandoc numbers reST heading styles in the order a text
  meets them, so in a block read alone an entry's "-----" heading would be level 1,
  like the page's title. Read behind two headings that meet "=" and then "-" first,
  the block gets the levels the page has. A filter only sees the numbers.
- as a filter (--lua-filter): pandoc keeps roles it does not know as code with the
  class "interpreted-text" and a "role" attribute, which Jupyter would print as
  ":entry:`...`". A notebook has no site around it, so every role becomes a link to
  its place on the published site, read from the table of labels that notebooks.py
  writes and names with -M notebook-links=FILE. A reader never sees that metadata.
]]

-- Reader -----------------------------------------------------------------------

local PRELUDE_IDS = { ["notebook-level-one"] = true, ["notebook-level-two"] = true }
local PRELUDE = "notebook level one\n==================\n\n"
  .. "notebook level two\n------------------\n\n"

function Reader(input, opts)
  local doc = pandoc.read(PRELUDE .. tostring(input), "rst", opts)
  doc.blocks = doc.blocks:filter(function(block)
    return not (block.t == "Header" and PRELUDE_IDS[block.identifier])
  end)
  return doc
end

-- Filter -----------------------------------------------------------------------

local links = {}

local function read_links(meta)
  local file = meta["notebook-links"]
  if file then
    local handle = assert(io.open(pandoc.utils.stringify(file), "r"))
    links = pandoc.json.decode(handle:read("a"), false)
    handle:close()
  end
end

-- "shown <label>" or a bare "label", as Sphinx's cross-reference roles take them.
local function split(text)
  local shown, label = text:match("^(.-)%s*<([^<>]+)>$")
  if label then
    return shown, label
  end
  return nil, text
end

local function target(role, label)
  -- Sphinx matches labels without regard to case.
  local found = links[label:lower()]
  if not found then
    error(
      "notebook_markdown.lua: :" .. role .. ":`" .. label .. "` names no label of the "
        .. "gallery pages or their folders; docs/_ext/notebooks.py lists the labels it knows"
    )
  end
  return found
end

local function heading(title)
  -- A :ref: without its own text shows the heading of what it links to, as Sphinx does.
  return pandoc.utils.blocks_to_inlines(pandoc.read(title, "rst").blocks)
end

local function role_to_markdown(code)
  if not code.classes:includes("interpreted-text") then
    return nil
  end
  local role = code.attributes.role
  local shown, label = split(code.text)
  if role == "entry" then
    -- The call as code, linked to the entry that runs it, as on the page.
    return pandoc.Link({ pandoc.Code(shown or label) }, target(role, label).url)
  elseif role == "ref" or role == "since" then
    -- :since: prints a release the build reads from its version records; a notebook
    -- cannot, so it links to the entry, whose page says from which release it works.
    local found = target(role, label)
    local text = shown and pandoc.Inlines(shown) or heading(found.title)
    return pandoc.Link(text, found.url)
  end
  error("notebook_markdown.lua: no Markdown for the role :" .. tostring(role) .. ":")
end

-- A `.. _label:` target becomes an identifier on what follows it; Markdown cells
-- show identifiers as text or raw HTML, and the links lead to the site, not here.
local function drop_identifier(element)
  element.identifier = ""
  return element
end

local function unwrap_plain(element)
  if #element.classes == 0 and #element.attributes == 0 then
    return element.content
  end
  element.identifier = ""
  return element
end

return {
  { Meta = read_links },
  { Code = role_to_markdown, Header = drop_identifier, Div = unwrap_plain, Span = unwrap_plain },
}
