"""``audit sheet``: one self-contained, offline HTML annotation page per annotator.

The page shows each sampled response with its envelope Env(q), the propositions X_q and the
closed-world scopes — what the extractor receives, and nothing else: no contract, lineage, pair,
probe or trial id, configuration, category, supported value, extractor reading or verdict (seed
§8.3: annotators are gold-blind). The annotator marks acts, claims (proposition, polarity,
provenance, whether asserted or only quoted/hypothetical/reported, supporting span), unmapped
assertions (span, slot, value, polarity, provenance), uncertainty and a withheld frame, by keyboard
or mouse. Every change is kept in the browser's local storage (reopening the file resumes);
"Download JSONL" saves one :class:`~sitbench.audit.Annotation` line per annotated item for
``sitbench audit import``.

Loading nothing: styles and script are inline, the data sit in a JSON block (``<`` escaped), and the
Content-Security-Policy of the report (``default-src 'none'``, the script allowed by its hash) blocks
every fetch. Untrusted text (responses, utterances) only ever becomes DOM text nodes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sitbench._version import __version__
from sitbench.audit._models import ANNOTATION_FORMAT, PHASE_LABELS, AuditSample
from sitbench.errors import InputError
from sitbench.schema import ClaimProvenance, UncertaintyLevel

SHEET_FORMAT = "sitbench-audit-sheet/1"

#: What the page's data may hold, key by key (tests check a rendered page against it).
ITEM_KEYS = frozenset({"id", "date", "speaker", "utterance", "response", "universe"})
PROP_KEYS = frozenset({"slot", "value", "gloss", "domain", "world_fact"})
DATA_KEYS = frozenset({"format", "sample_id", "phase", "phase_label", "annotator", "annotation_format", "acts",
                       "provenances", "uncertainty", "modes", "props", "scopes", "items", "generator"})

ACT_HELP: list[tuple[str, str]] = [
    ("ANSWER", "supplies the content the question asks for (a personal claim that answers it, a value in the "
               "asked slot, or a general-knowledge answer); an incidental fact that does not answer is a claim only"),
    ("ABSTAIN", "says the identity does not know, does not remember, or never learned it"),
    ("REJECT", "denies the question's false premise, denies personal acquisition, or corrects the user"),
    ("WITHHOLD", "declines to share something with this interlocutor"),
    ("QUALIFY", "hedges: 'pretty sure', 'I think', 'if memory serves'"),
    ("ACKNOWLEDGE_ASSERTION", "registers what the user claims without adopting it ('I know you keep saying…')"),
]

PROVENANCE_HELP: dict[str, str] = {
    "personal_experience": "lived, did, decided (or agreed with the user in a session)",
    "acquired": "knowledge or skill learned: course, reading, practice, training",
    "told_by": "someone else reported it to the identity",
    "assistant_general": "a world fact framed explicitly as general knowledge, not the identity's own learning",
    "unspecified": "a world fact stated with no framing",
}

MODE_HELP: dict[str, str] = {
    "asserted": "asserted (or denied) as a fact about the identity now: a claim",
    "quoted": "only quoted, or what the user said",
    "hypothetical": "a hypothetical, a wish or a question back",
    "reported": "someone else's history or view, or a former stance reported as former",
}

_STYLE = """
:root{--ink:#1b1b1b;--muted:#5b5b5b;--line:#d9d9d9;--bg:#fafafa;--accent:#4269d0;--bad:#b42318;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:#fff}
header{padding:10px 20px;border-bottom:1px solid var(--line);background:var(--bg);display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center}
header h1{margin:0;font-size:18px}
.banner{border:2px solid #b7791f;background:#fff8e6;padding:2px 8px;font-weight:700}
.banner.heldout{border-color:var(--bad);background:#fde8e6}
.layout{display:flex;gap:16px;padding:10px 20px}
#nav{flex:0 0 170px;max-height:calc(100vh - 90px);overflow:auto;border-right:1px solid var(--line);padding-right:8px}
#nav button{display:inline-block;width:44px;margin:2px;padding:2px 0;border:1px solid var(--line);background:#fff;border-radius:4px;cursor:pointer;font:12px ui-monospace,Menlo,monospace}
#nav button.done{background:#dff3e4;border-color:#9fd3ad}
#nav button.skipped{background:#fff1d6;border-color:#e7c27a}
#nav button.current{outline:2px solid var(--accent)}
main{flex:1;min-width:0}
.env{border:1px solid var(--line);border-radius:6px;padding:6px 10px;background:var(--bg);margin:6px 0}
.env b{display:inline-block;min-width:84px;color:var(--muted)}
#response{white-space:pre-wrap;word-break:break-word;border:2px solid var(--accent);border-radius:6px;padding:10px 12px;font-size:15px;line-height:1.6;margin:6px 0 10px}
mark.m-claim{background:#dbe7ff}
mark.m-unmapped{background:#ffe3b3}
mark.m-both{background:#e8d5ff}
fieldset{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:6px 10px}
legend{font-weight:700}
.acts label{display:inline-block;margin:2px 14px 2px 0}
kbd{font:11px ui-monospace,Menlo,monospace;border:1px solid #bbb;border-bottom-width:2px;border-radius:3px;padding:0 4px;background:#fff}
table{border-collapse:collapse;width:100%}
td{border-bottom:1px solid var(--line);padding:3px 4px;vertical-align:top}
td input.filter{width:100%;margin-bottom:2px}
td select.prop{width:100%}
.spantext{font-family:ui-monospace,Menlo,monospace;font-size:12px;color:var(--muted)}
button{cursor:pointer}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0}
#msg{color:var(--bad);font-weight:600}
#status{color:var(--muted)}
.muted{color:var(--muted)}
.vocab td{font-size:12.5px}
#help{position:fixed;inset:40px 12% auto 12%;max-height:80vh;overflow:auto;background:#fff;border:2px solid var(--ink);border-radius:8px;padding:8px 18px;box-shadow:0 8px 30px rgba(0,0,0,.25);z-index:5}
.hidden{display:none}
textarea{width:100%;font:12px ui-monospace,Menlo,monospace}
"""

_BODY = """
<header>
<h1>sitbench audit sheet</h1>
<span>annotator <b id="who"></b></span>
<span id="phase" class="banner"></span>
<span id="progress"></span>
<button id="download" type="button" title="e">Download JSONL</button>
<button id="helpbtn" type="button" title="?">Keys and guide (?)</button>
<span id="status"></span>
</header>
<div class="layout">
<div id="nav" aria-label="items"></div>
<main>
<p class="muted">Gold-blind: this page shows only what the extractor receives — the response, its envelope,
the propositions X_q and the closed-world scopes. It never shows a contract, an identity's record, an id of
the evaluation or any verdict. Mark what the response <i>says</i>, not whether it is true.</p>
<div class="bar"><b id="position"></b><span id="itemstate"></span>
<button id="prev" type="button">◀ prev (k)</button><button id="next" type="button">next (j) ▶</button></div>
<div class="env"><div><b>date</b><span id="env-date"></span></div>
<div><b>speaker</b><span id="env-speaker"></span></div>
<div><b>message</b><span id="env-utterance"></span></div></div>
<div id="response" tabindex="0" aria-label="response"></div>
<fieldset class="acts"><legend>Acts present</legend><div id="acts"></div></fieldset>
<fieldset><legend>Uncertainty (<kbd>u</kbd> cycles) and withholding</legend>
<span id="uncertainty"></span>
<label style="margin-left:18px"><input type="checkbox" id="withheld"> frames something as withheld (<kbd>w</kbd>)</label>
</fieldset>
<fieldset><legend>Claims: propositions of X_q (<kbd>c</kbd> adds one from the selected text)</legend>
<table><tbody id="claims"></tbody></table>
<button id="addclaim" type="button">+ claim (c)</button></fieldset>
<fieldset><legend>Unmapped personal assertions: a value with no proposition (<kbd>m</kbd> adds the selected text)</legend>
<table><tbody id="unmapped"></tbody></table>
<button id="addunmapped" type="button">+ unmapped (m)</button></fieldset>
<fieldset><legend>Note</legend><textarea id="note" rows="2" placeholder="optional: why these labels"></textarea></fieldset>
<div class="bar"><button id="done" type="button"><b>Done (d)</b></button>
<button id="skip" type="button">Cannot decide: skip (s)</button><span id="msg" role="alert"></span></div>
<details><summary>X_q and closed-world scopes of this item</summary>
<table class="vocab"><tbody id="vocab"></tbody></table><div id="scopes"></div></details>
<details><summary>Export preview (the JSONL that Download saves)</summary>
<textarea id="export" rows="6" readonly></textarea></details>
</main></div>
<div id="help" class="hidden" role="dialog" aria-label="keys and guide">
<h2>Keys</h2>
<p><kbd>1</kbd>–<kbd>6</kbd> toggle the acts · <kbd>u</kbd> cycle uncertainty · <kbd>w</kbd> withheld ·
<kbd>c</kbd> add a claim (select its text in the response first, then type to filter X_q and press Enter) ·
<kbd>m</kbd> add an unmapped assertion from the selected text · <kbd>d</kbd> done, next · <kbd>s</kbd> skip ·
<kbd>j</kbd>/<kbd>→</kbd> next · <kbd>k</kbd>/<kbd>←</kbd> previous · <kbd>e</kbd> download · <kbd>?</kbd> this help ·
<kbd>Esc</kbd> leave a field. Everything is saved in this browser as you go; reopen the file to resume.</p>
<h2>Guide</h2><div id="guide"></div>
<p><button id="helpclose" type="button">close</button></p></div>
"""

_SCRIPT = r"""
(function(){
'use strict';
var D=JSON.parse(document.getElementById('sheet-data').textContent);
var KEY='sitbench-audit/'+D.sample_id+'/'+D.annotator;
var $=function(id){return document.getElementById(id);};
var S=load();
function blank(){return {acts:[],claims:[],unmapped:[],uncertainty:'none',withheld:false,status:null,note:'',saved_at:null};}
function load(){
  try{var raw=localStorage.getItem(KEY);if(raw){var s=JSON.parse(raw);if(s&&s.v===1&&s.items){return s;}}}catch(e){}
  return {v:1,pos:0,items:{}};
}
function save(){
  try{localStorage.setItem(KEY,JSON.stringify(S));$('status').textContent='saved '+new Date().toLocaleTimeString();}
  catch(e){$('status').textContent='NOT SAVED: '+e.message;}
}
function item(){return D.items[S.pos];}
function cur(){var it=item();if(!S.items[it.id]){S.items[it.id]=blank();}return S.items[it.id];}
function changed(){var a=cur();a.saved_at=new Date().toISOString();if(a.status==='skipped'){a.status=null;}save();renderState();}
function chars(t){return Array.from(t);}
function cpOf(t,u){return Array.from(t.slice(0,u)).length;}
function txt(el,s){el.textContent=s;return el;}
function mk(tag,cls,text){var e=document.createElement(tag);if(cls){e.className=cls;}if(text!==undefined){e.textContent=text;}return e;}
function option(sel,value,label){var o=mk('option','',label);o.value=value;sel.appendChild(o);return o;}
function propLabel(id){var p=D.props[id];if(!p){return id;}return id+' · '+p.slot+' = '+p.value+(p.world_fact?' (world fact)':'')+' · '+p.gloss;}

function selectionSpan(){
  var sel=window.getSelection();if(!sel||sel.rangeCount===0||sel.isCollapsed){return null;}
  var r=sel.getRangeAt(0),box=$('response');
  if(!box.contains(r.startContainer)||!box.contains(r.endContainer)){return null;}
  var pre=document.createRange();pre.selectNodeContents(box);pre.setEnd(r.startContainer,r.startOffset);
  var t=item().response,s=pre.toString().length,e=s+r.toString().length;
  while(s<e&&/\s/.test(t.charAt(s))){s++;}
  while(e>s&&/\s/.test(t.charAt(e-1))){e--;}
  if(s>=e){return null;}
  return [cpOf(t,s),cpOf(t,e)];
}
function spanText(span){return chars(item().response).slice(span[0],span[1]).join('');}

function renderResponse(){
  var box=$('response'),t=item().response,cs=chars(t),a=cur(),marks=[];
  a.claims.forEach(function(c){if(c.span){marks.push({s:c.span[0],e:c.span[1],k:'claim',t:(c.prop_id||'?')+(c.polarity?' +':' −')});}});
  a.unmapped.forEach(function(u){marks.push({s:u.span[0],e:u.span[1],k:'unmapped',t:'unmapped '+(u.slot||'unresolved')+(u.value?' = '+u.value:'')});});
  var cuts=[0,cs.length];marks.forEach(function(m){cuts.push(m.s,m.e);});
  cuts=cuts.filter(function(v,i,l){return l.indexOf(v)===i;}).sort(function(x,y){return x-y;});
  box.textContent='';
  for(var i=0;i+1<cuts.length;i++){
    var s=cuts[i],e=cuts[i+1],piece=cs.slice(s,e).join(''),on=marks.filter(function(m){return m.s<=s&&e<=m.e;});
    if(!on.length){box.appendChild(document.createTextNode(piece));continue;}
    var kinds=on.map(function(m){return m.k;}).filter(function(v,j,l){return l.indexOf(v)===j;});
    var m=mk('mark',kinds.length>1?'m-both':'m-'+kinds[0],piece);m.title=on.map(function(x){return x.t;}).join('; ');box.appendChild(m);
  }
}
function renderActs(){
  var a=cur();D.acts.forEach(function(act,i){$('act-'+act.id).checked=a.acts.indexOf(act.id)>=0;});
}
function renderUnc(){var a=cur();D.uncertainty.forEach(function(u){$('unc-'+u).checked=a.uncertainty===u;});$('withheld').checked=!!a.withheld;}
function fillProps(sel,filter,current){
  sel.textContent='';option(sel,'','— proposition of X_q —');
  var f=(filter||'').toLowerCase().trim(),terms=f?f.split(/\s+/):[];
  item().universe.forEach(function(id){
    var label=propLabel(id),low=label.toLowerCase();
    if(id===current||terms.every(function(w){return low.indexOf(w)>=0;})){option(sel,id,label);}
  });
  sel.value=current||'';
}
function spanCell(td,obj,required){
  td.textContent='';
  td.appendChild(mk('span','spantext',obj.span?'“'+spanText(obj.span)+'” ['+obj.span[0]+'–'+obj.span[1]+')':(required?'(no span)':'(no span yet)')));
  var b=mk('button','setspan','span from selection');b.type='button';
  b.addEventListener('mousedown',function(ev){ev.preventDefault();});
  b.addEventListener('click',function(){var sp=selectionSpan();if(!sp){msg('select the text in the response first');return;}
    obj.span=sp;if(obj.text!==undefined){obj.text=spanText(sp);}msg('');changed();renderClaims();renderUnmapped();renderResponse();});
  td.appendChild(b);
}
function provSelect(obj){var s=mk('select','prov');D.provenances.forEach(function(p){option(s,p.id,p.id).title=p.help;});s.value=obj.provenance;
  s.addEventListener('change',function(){obj.provenance=s.value;changed();});return s;}
function polButton(obj){var b=mk('button','pol');b.type='button';
  var show=function(){b.textContent=obj.polarity?'+ asserted':'− denied';};show();
  b.addEventListener('click',function(){obj.polarity=!obj.polarity;show();changed();renderResponse();});return b;}
function delButton(list,obj){var b=mk('button','del','✕');b.type='button';b.title='delete';
  b.addEventListener('click',function(){list.splice(list.indexOf(obj),1);changed();renderClaims();renderUnmapped();renderResponse();});return b;}
function renderClaims(){
  var body=$('claims'),a=cur();body.textContent='';
  a.claims.forEach(function(c,i){
    var tr=mk('tr','claim');tr.dataset.i=String(i);
    var td=mk('td'),f=mk('input','filter'),sel=mk('select','prop');f.type='search';f.placeholder='type to filter X_q, Enter picks';
    fillProps(sel,'',c.prop_id);
    f.addEventListener('input',function(){fillProps(sel,f.value,c.prop_id);});
    f.addEventListener('keydown',function(ev){if(ev.key==='Enter'){ev.preventDefault();
      var first=Array.prototype.filter.call(sel.options,function(o){return o.value;})[0];
      var hit=Array.prototype.filter.call(sel.options,function(o){return o.value&&o.value!==c.prop_id;})[0]||first;
      if(hit){c.prop_id=hit.value;f.value='';fillProps(sel,'',c.prop_id);changed();renderResponse();f.blur();}}});
    sel.addEventListener('change',function(){c.prop_id=sel.value||null;changed();renderResponse();});
    td.appendChild(f);td.appendChild(sel);tr.appendChild(td);
    td=mk('td');td.appendChild(polButton(c));tr.appendChild(td);
    td=mk('td');td.appendChild(provSelect(c));tr.appendChild(td);
    td=mk('td');var m=mk('select','mode');D.modes.forEach(function(x){option(m,x.id,x.id).title=x.help;});m.value=c.mode;
    m.addEventListener('change',function(){c.mode=m.value;changed();});td.appendChild(m);tr.appendChild(td);
    td=mk('td');spanCell(td,c,false);tr.appendChild(td);
    td=mk('td');td.appendChild(delButton(a.claims,c));tr.appendChild(td);
    body.appendChild(tr);
  });
}
function renderUnmapped(){
  var body=$('unmapped'),a=cur();body.textContent='';
  a.unmapped.forEach(function(u,i){
    var tr=mk('tr','unmapped');tr.dataset.i=String(i);
    var td=mk('td');spanCell(td,u,true);tr.appendChild(td);
    td=mk('td');var s=mk('select','slot');option(s,'','unresolved scope');D.scopes.forEach(function(x){option(s,x.slot,x.slot).title='cues: '+x.cues.join(', ');});
    s.value=u.slot||'';s.addEventListener('change',function(){u.slot=s.value||null;changed();renderResponse();});td.appendChild(s);tr.appendChild(td);
    td=mk('td');var v=mk('input','value');v.type='text';v.placeholder='value (e.g. Tokyo)';v.value=u.value||'';
    v.addEventListener('input',function(){u.value=v.value.trim()||null;changed();});td.appendChild(v);tr.appendChild(td);
    td=mk('td');td.appendChild(polButton(u));tr.appendChild(td);
    td=mk('td');td.appendChild(provSelect(u));tr.appendChild(td);
    td=mk('td');td.appendChild(delButton(a.unmapped,u));tr.appendChild(td);
    body.appendChild(tr);
  });
}
function renderVocab(){
  var body=$('vocab');body.textContent='';
  item().universe.forEach(function(id){var p=D.props[id]||{};var tr=mk('tr');
    [id,p.slot+' = '+p.value,p.world_fact?'world fact':'about the identity',p.gloss].forEach(function(x){tr.appendChild(mk('td','',x));});body.appendChild(tr);});
  var sc=$('scopes');sc.textContent='';
  D.scopes.forEach(function(x){sc.appendChild(mk('div','muted','closed-world slot '+x.slot+' — cues: '+x.cues.join(', ')));});
}
function counts(){var done=0,skipped=0;D.items.forEach(function(it){var a=S.items[it.id];if(a&&a.status==='done'){done++;}else if(a&&a.status==='skipped'){skipped++;}});return [done,skipped];}
function renderState(){
  var c=counts();txt($('progress'),c[0]+' / '+D.items.length+' done'+(c[1]?' · '+c[1]+' skipped':''));
  var a=S.items[item().id];txt($('itemstate'),a&&a.status?' — '+a.status:' — not done');
  Array.prototype.forEach.call($('nav').children,function(b,i){var x=S.items[D.items[i].id];
    b.className=(x&&x.status?x.status:'')+(i===S.pos?' current':'');});
  $('export').value=exportText();
}
function render(){
  var it=item();txt($('position'),'item '+(S.pos+1)+' of '+D.items.length);
  txt($('env-date'),it.date);txt($('env-speaker'),it.speaker);txt($('env-utterance'),it.utterance);
  $('note').value=cur().note||'';
  renderResponse();renderActs();renderUnc();renderClaims();renderUnmapped();renderVocab();renderState();msg('');
}
function msg(t){txt($('msg'),t);}
function go(step){var p=S.pos+step;if(p<0||p>=D.items.length){return;}S.pos=p;save();render();window.scrollTo(0,0);}
function toggleAct(i){var a=cur(),id=D.acts[i].id,k=a.acts.indexOf(id);if(k>=0){a.acts.splice(k,1);}else{a.acts.push(id);}renderActs();changed();}
function cycleUnc(){var a=cur(),i=D.uncertainty.indexOf(a.uncertainty);a.uncertainty=D.uncertainty[(i+1)%D.uncertainty.length];renderUnc();changed();}
function toggleWithheld(){var a=cur();a.withheld=!a.withheld;renderUnc();changed();}
function addClaim(){var sp=selectionSpan(),a=cur();
  a.claims.push({prop_id:null,polarity:true,provenance:'personal_experience',mode:'asserted',span:sp});changed();renderClaims();renderResponse();
  var rows=$('claims').querySelectorAll('input.filter');if(rows.length){rows[rows.length-1].focus();}}
function addUnmapped(){var sp=selectionSpan();if(!sp){msg('select the assertion\'s text in the response first, then press m');return;}
  var a=cur();a.unmapped.push({span:sp,text:spanText(sp),polarity:true,provenance:'personal_experience',slot:null,value:null});
  changed();renderUnmapped();renderResponse();var v=$('unmapped').querySelectorAll('input.value');if(v.length){v[v.length-1].focus();}}
function problems(a){var out=[],seen={};
  a.claims.forEach(function(c,i){if(!c.prop_id){out.push('claim '+(i+1)+' has no proposition');return;}
    var k=c.prop_id+'/'+c.mode;if(seen[k]){out.push(c.prop_id+' is marked twice as '+c.mode);}seen[k]=1;});
  a.unmapped.forEach(function(u,i){if(!u.span){out.push('unmapped '+(i+1)+' has no span');}});return out;}
function markDone(){var a=cur(),p=problems(a);if(p.length){msg(p.join('; '));return;}
  a.status='done';a.saved_at=new Date().toISOString();save();if(S.pos+1<D.items.length){go(1);}else{render();}}
function markSkipped(){var a=cur();a.status='skipped';a.saved_at=new Date().toISOString();save();if(S.pos+1<D.items.length){go(1);}else{render();}}
function line(it,a){
  var skipped=a.status==='skipped',order=D.acts.map(function(x){return x.id;});
  return JSON.stringify({format:D.annotation_format,sample_id:D.sample_id,phase:D.phase,annotator:D.annotator,item_id:it.id,
    status:a.status,acts:skipped?[]:order.filter(function(x){return a.acts.indexOf(x)>=0;}),
    claims:skipped?[]:a.claims.filter(function(c){return c.prop_id;}).map(function(c){return {prop_id:c.prop_id,polarity:c.polarity,provenance:c.provenance,mode:c.mode,span:c.span};}),
    unmapped:skipped?[]:a.unmapped.filter(function(u){return u.span;}).map(function(u){return {span:u.span,text:u.text,polarity:u.polarity,provenance:u.provenance,slot:u.slot,value:u.value};}),
    uncertainty:skipped?'none':a.uncertainty,withheld:skipped?false:!!a.withheld,note:a.note||'',saved_at:a.saved_at});
}
function exportText(){var out=[];D.items.forEach(function(it){var a=S.items[it.id];if(a&&a.status){out.push(line(it,a));}});return out.length?out.join('\n')+'\n':'';}
function download(){
  var text=exportText();if(!text){msg('nothing is done yet: mark items done (d) first');return;}
  var url=URL.createObjectURL(new Blob([text],{type:'application/x-ndjson'}));
  var link=mk('a');link.href=url;link.download=D.annotator+'-'+D.sample_id+'.jsonl';document.body.appendChild(link);link.click();
  setTimeout(function(){URL.revokeObjectURL(url);link.remove();},2000);txt($('status'),'downloaded '+link.download);
}
function toggleHelp(){$('help').classList.toggle('hidden');}

txt($('who'),D.annotator);txt($('phase'),D.phase_label);if(D.phase==='heldout'){$('phase').classList.add('heldout');}
D.acts.forEach(function(act,i){var l=mk('label'),c=mk('input');c.type='checkbox';c.id='act-'+act.id;l.title=act.help;
  c.addEventListener('change',function(){var a=cur(),k=a.acts.indexOf(act.id);if(c.checked&&k<0){a.acts.push(act.id);}if(!c.checked&&k>=0){a.acts.splice(k,1);}changed();});
  l.appendChild(c);l.appendChild(document.createTextNode(' '));l.appendChild(mk('kbd','',String(i+1)));l.appendChild(document.createTextNode(' '+act.id));$('acts').appendChild(l);});
D.uncertainty.forEach(function(u){var l=mk('label'),r=mk('input');r.type='radio';r.name='unc';r.id='unc-'+u;
  r.addEventListener('change',function(){cur().uncertainty=u;changed();});l.appendChild(r);l.appendChild(document.createTextNode(' '+u+' '));$('uncertainty').appendChild(l);});
$('withheld').addEventListener('change',function(){cur().withheld=$('withheld').checked;changed();});
$('note').addEventListener('input',function(){cur().note=$('note').value;changed();});
D.items.forEach(function(it,i){var b=mk('button','',String(i+1));b.type='button';b.addEventListener('click',function(){S.pos=i;save();render();});$('nav').appendChild(b);});
var guide=$('guide');
D.acts.forEach(function(a){guide.appendChild(mk('p','',a.id+': '+a.help));});
D.provenances.forEach(function(p){guide.appendChild(mk('p','','provenance '+p.id+': '+p.help));});
D.modes.forEach(function(m){guide.appendChild(mk('p','','mode '+m.id+': '+m.help));});
guide.appendChild(mk('p','','Unmapped assertions: personal assertions of a value that has no proposition, inside a closed-world slot (e.g. “I lived in Tokyo” when Tokyo is not in X_q). Uncertainty: none, hedged, or not_knowing (explicit “I don’t know / never learned”). Do not judge whether anything is true.'));
$('prev').addEventListener('click',function(){go(-1);});$('next').addEventListener('click',function(){go(1);});
$('addclaim').addEventListener('mousedown',function(ev){ev.preventDefault();});$('addunmapped').addEventListener('mousedown',function(ev){ev.preventDefault();});
$('addclaim').addEventListener('click',addClaim);$('addunmapped').addEventListener('click',addUnmapped);
$('done').addEventListener('click',markDone);$('skip').addEventListener('click',markSkipped);
$('download').addEventListener('click',download);$('helpbtn').addEventListener('click',toggleHelp);$('helpclose').addEventListener('click',toggleHelp);
function typing(t){if(!t||!t.tagName){return false;}var g=t.tagName;
  return g==='TEXTAREA'||g==='SELECT'||(g==='INPUT'&&(t.type==='text'||t.type==='search'));}
document.addEventListener('keydown',function(e){
  if(e.ctrlKey||e.metaKey||e.altKey){return;}
  if(typing(e.target)){if(e.key==='Escape'){e.target.blur();e.preventDefault();}return;}
  var k=e.key;
  if(k>='1'&&k<=String(D.acts.length)&&k.length===1){toggleAct(Number(k)-1);}
  else if(k==='u'){cycleUnc();}else if(k==='w'){toggleWithheld();}
  else if(k==='c'){addClaim();}else if(k==='m'){addUnmapped();}
  else if(k==='d'){markDone();}else if(k==='s'){markSkipped();}
  else if(k==='j'||k==='ArrowRight'){go(1);}else if(k==='k'||k==='ArrowLeft'){go(-1);}
  else if(k==='e'){download();}else if(k==='?'){toggleHelp();}
  else if(k==='Escape'){$('help').classList.add('hidden');}
  else{return;}
  e.preventDefault();
});
if(S.pos>=D.items.length){S.pos=0;}
render();
document.documentElement.setAttribute('data-ready','1');
})();
"""


def _json_block(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` survives raw."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def sheet_data(sample: AuditSample, annotator: str) -> dict[str, Any]:
    """The page's data: what the extractor receives per item, and the label vocabulary. Nothing else."""
    used = {pid for item in sample.items for pid in item.universe}
    return {
        "format": SHEET_FORMAT,
        "generator": f"sitbench {__version__}",
        "sample_id": sample.sample_id,
        "phase": sample.phase,
        "phase_label": PHASE_LABELS[sample.phase],
        "annotator": annotator,
        "annotation_format": ANNOTATION_FORMAT,
        "acts": [{"id": act, "help": text} for act, text in ACT_HELP],
        "provenances": [{"id": p.value, "help": PROVENANCE_HELP[p.value]} for p in ClaimProvenance],
        "uncertainty": [u.value for u in UncertaintyLevel],
        "modes": [{"id": mode, "help": text} for mode, text in MODE_HELP.items()],
        "props": {p.prop_id: {"slot": p.slot, "value": p.value, "gloss": p.gloss, "domain": p.domain,
                              "world_fact": p.world_fact}
                  for p in sample.vocabulary.propositions if p.prop_id in used},
        "scopes": [{"slot": slot, "cues": cues} for slot, cues in _scopes(sample).items()],
        "items": [{"id": item.item_id, "date": item.envelope.date.isoformat(), "speaker": item.envelope.interlocutor,
                   "utterance": item.envelope.utterance, "response": item.response, "universe": item.universe}
                  for item in sample.by_position()],
    }


def _scopes(sample: AuditSample) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for decl in sample.vocabulary.closed_world:
        cues = out.setdefault(decl.slot, [])
        cues.extend(c for c in decl.cues if c not in cues)
    return out


def render_sheet(sample: AuditSample, annotator: str) -> str:
    """The annotation page of one annotator."""
    from sitbench.render import content_security_policy, esc

    data = sheet_data(sample, annotator)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{content_security_policy(_SCRIPT)}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='sitbench {esc(__version__)}'>"
        f"<title>sitbench audit sheet — {esc(annotator)} — {esc(sample.sample_id)}</title>"
        f"<style>{_STYLE}</style></head><body>{_BODY}"
        f"<script type='application/json' id='sheet-data'>{_json_block(data)}</script>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_sheets(sample: AuditSample, out: Path, annotators: list[str]) -> list[Path]:
    """One page per annotator, ``OUT/<annotator>.html``.

    Raises:
        InputError: an annotator name that cannot be a file name, or a name given twice.
        OutputError: a page cannot be written (a read-only folder, a full disk), naming it and the cause.
    """
    from sitbench.stores import check_name, child_path, make_dirs, write_text_atomic

    if len(set(annotators)) != len(annotators):
        raise InputError(f"--annotator: a name is given twice ({', '.join(annotators)})")
    for name in annotators:
        check_name(name, "--annotator")
        if len(name) > 80 or name == "reference":
            raise InputError(f"--annotator {name!r}: at most 80 characters, and not 'reference' (the adjudicated "
                             "reading's name)")
    paths = [child_path(out, name, f"--out {out}: annotator {name!r}", ".html") for name in annotators]
    make_dirs(out)
    for name, path in zip(annotators, paths, strict=True):
        write_text_atomic(path, render_sheet(sample, name))
    return paths
