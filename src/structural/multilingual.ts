// The indirect-injection classes of indirect.ts in DE, FR, ES, PT, IT, ZH, JA and RU: an AI
// addressee and an imperative, something planted in "your answer" or the task replaced, and an
// override of "everything before" (in English too). Latin-script patterns run in the "language"
// scope, whose folded view drops accents, so they are written without them; ZH, JA and RU run in
// the "script" scope, which keeps Cyrillic as written. ReDoS discipline as in rules.ts.

import * as L from "./labels.js";
import { GAP, quotedListFollows, quotedListPrecedes, type Rule, rule } from "./rule.js";

/** The end of an addressee: a colon, comma, dash or a sentence end, then optional spaces. */
const STOP = "\\s*(?:[:,;!—–-]|\\.(?=\\s))\\s*";

// ---- Latin-script languages (folded view: no accents) ----------------------------------------

/** What an AI reader is called (DE, FR, ES, PT, IT). */
const ML_AI =
  "(?:KI|AI|IA|LLM|Sprachmodell(?:e|en)?|(?:KI-)?(?:Assistent(?:in|en)?|Agent(?:en)?|Modell)|Chatbot|Bot|intelligence\\s+artificielle|inteligencia\\s+artificial|inteligencia\\s+artificial|intelligenza\\s+artificiale|assistant(?:e)?(?:\\s+(?:IA|virtuel(?:le)?))?|asistente(?:\\s+(?:de\\s+)?IA|\\s+virtual)?|assistente(?:\\s+(?:de\\s+)?IA|\\s+virtuale?)?|modele(?:\\s+de\\s+langage)?|modelo(?:\\s+de\\s+lenguaje|\\s+de\\s+linguagem)?|modello(?:\\s+linguistico)?|agente(?:\\s+(?:de\\s+)?IA)?|agent\\s+IA)";

/** "Hinweis für die KI", "note pour l'IA", "nota para la IA", "nota per l'IA", "nota para a IA". */
const ML_NOTE =
  "(?:Hinweis|Nachricht|Anweisung(?:en)?|Achtung|Notiz|Bitte|note|message|consigne|instructions?|attention|remarque|nota|mensaje|mensagem|instrucciones|instrucoes|atencion|atencao|aviso|messaggio|istruzioni|attenzione|avviso)\\s*(?:an|fur|pour|a|para|per|al|alla|ao)\\s+(?:(?:die|den|das|alle|jede[nrs]?|l['’]\\s?|la|le|les|tout(?:e|es)?|toute|el|los|las|cualquier|todo|a|o|os|as|qualquer|lo|gli|ogni|qualsiasi|ai|all['’]\\s?)\\s*){0,2}" +
  ML_AI;

/** "wenn du eine KI bist", "si vous êtes une IA", "si eres una IA", "se você é uma IA", "se sei un'IA". */
const ML_IF_AI =
  "(?:wenn|falls)\\s+(?:du|Sie)\\s+(?:eine?\\s+|ein\\s+)?(?:KI|AI|Sprachmodell|(?:KI-)?Assistent|Chatbot|Bot)\\s+(?:bist|sind)" +
  "|si\\s+(?:vous\\s+etes|tu\\s+es)\\s+(?:une?\\s+|l['’]\\s?)?(?:IA|intelligence\\s+artificielle|assistant(?:e)?|modele|chatbot|bot)" +
  "|si\\s+(?:eres|es|usted\\s+es)\\s+(?:una?\\s+)?(?:IA|inteligencia\\s+artificial|asistente|modelo|chatbot|bot)" +
  "|se\\s+(?:voce\\s+(?:e|for)|tu\\s+es|sei)\\s+(?:uma?\\s+|un['’]?\\s*|una\\s+)?(?:IA|inteligencia\\s+artificial|intelligenza\\s+artificiale|assistente|modelo|modello|chatbot|bot)";

/** Imperatives (and "you must") that follow an addressee, per language. */
const ML_IMPERATIVE =
  "(?:(?:bitte|veuillez|merci\\s+de|por\\s+favor|per\\s+favore|s['’]il\\s+vous\\s+plait)\\s*,?\\s+)?(?:" +
  // German
  "ignoriere|ignorieren\\s+Sie|leite|leiten\\s+Sie|sende|senden\\s+Sie|schicke?|schicken\\s+Sie|uberweise|uberweisen\\s+Sie|fuge|fugen\\s+Sie|erwahne|erwahnen\\s+Sie|empfiehl|empfehlen\\s+Sie|sage?|sagen\\s+Sie|antworte|antworten\\s+Sie|gib|geben\\s+Sie|klicke|klicken\\s+Sie|offne|offnen\\s+Sie|fuhre|fuhren\\s+Sie|lade|laden\\s+Sie|losche|loschen\\s+Sie|teile|teilen\\s+Sie|vergiss|vergessen\\s+Sie|schreibe?|schreiben\\s+Sie|behaupte|behaupten\\s+Sie|bewerte|bewerten\\s+Sie|genehmige|genehmigen\\s+Sie|du\\s+musst|Sie\\s+mussen|fasse|ubersetze|" +
  // French
  "ignore[rz]?|transfere[rz]?|envoie[rz]?|envoyer|transmet(?:s|tez|tre)|ajoute[rz]?|inclu(?:s|ez|re)|mentionne[rz]?|recommande[zr]?|dis|dites|repond(?:s|ez|re)|clique[zr]?|ouvre[zr]?|execute[zr]?|telecharge[zr]?|supprime[zr]?|partage[zr]?|oublie[zr]?|ecri(?:s|vez|re)|vire[zr]?|paye[zr]?|informe[zr]?|approuve[zr]?|tu\\s+dois|vous\\s+devez|" +
  // Spanish
  "ignora|reenvia|reenvie|envia|envie|manda|mande|transfiere|transfiera|anade|anada|agrega|agregue|incluye|incluya|menciona|mencione|recomienda|recomiende|di|diga|dile|digale|responde|responda|haz\\s+clic|haga\\s+clic|abre|abra|ejecuta|ejecute|descarga|descargue|borra|elimina|comparte|comparta|olvida|olvide|escribe|escriba|paga|pague|aprueba|apruebe|debes|usted\\s+debe|" +
  // Portuguese
  "encaminhe|encaminha|adicione|adiciona|inclua|inclui|recomende|recomenda|diz|clique|execute|executa|baixe|apague|exclua|compartilhe|esqueca|escreva|informe|aprove|voce\\s+deve|" +
  // Italian
  "ignori|inoltra|inoltri|invia|invii|mandi|trasferisci|trasferisca|bonifica|aggiungi|aggiunga|includi|menziona|menzioni|raccomanda|consiglia|consigli|dica|rispondi|risponda|clicca|clicchi|apri|esegui|esegua|scarica|scarichi|cancella|condividi|dimentica|scrivi|scriva|paghi|approva|devi|deve" +
  ")\\b";

/** "in your answer" (DE, FR, ES, PT, IT). */
const ML_IN_ANSWER =
  "(?:in\\s+(?:deiner|Ihrer|der)\\s+(?:Antwort|Zusammenfassung|Ubersetzung)|dans\\s+(?:votre|ta|la)\\s+(?:reponse|resume|traduction)|en\\s+(?:tu|su|la)\\s+(?:respuesta|resumen|traduccion)|(?:na|em)\\s+(?:sua|tua)\\s+(?:resposta|traducao)|no\\s+(?:seu|teu)\\s+resumo|nella\\s+(?:tua|sua)\\s+(?:risposta|traduzione)|nel\\s+(?:tuo|suo)\\s+riassunto)";

/** Verbs that plant or recommend something (DE, FR, ES, PT, IT), imperative forms. */
const ML_PLANT =
  "(?:fuge|fugen\\s+Sie|erwahne|erwahnen\\s+Sie|empfiehl|empfehlen\\s+Sie|nenne|nennen\\s+Sie|verlinke|verlinken\\s+Sie|schreibe?|schreiben\\s+Sie|ajoute[rz]?|inclu(?:s|ez|re)|mentionne[rz]?|recommande[zr]?|insere[rz]?|conseille[rz]?|anade|anada|agrega|agregue|incluye|incluya|menciona|mencione|recomienda|recomiende|inserta|inserte|adicione|adiciona|inclua|inclui|mencione|recomende|insira|aggiungi|aggiunga|includi|includa|menziona|menzioni|raccomanda|consiglia|inserisci|inserisca)\\b";

/** What a planted instruction puts into the answer: a link, URL, ad, image, "the following …", a quoted string. */
const ML_PLANTED =
  "(?:https?:\\/\\/|www\\.|\\b[\\w-]{2,}\\.(?:com|net|org|de|fr|es|it|pt|br|io|xyz|info|shop)\\b|[\"“'‘«„][^\"”'’»“\\n]{2,200}[\"”'’»“]|\\b(?:Link|Links|URL|Webseite|Website|Werbung|Satz|folgende[nms]?|Bild|Banner|Empfehlung|lien|site|publicite|phrase|suivante?s?|image|recommandation|enlace|sitio|publicidad|frase|siguiente|imagen|anuncio|recomendacion|seguinte|imagem|recomendacao|collegamento|sito|pubblicita|seguente|immagine|raccomandazione)\\b)";

/** "instead of summarizing / translating / answering" (DE, FR, ES, PT, IT). */
const ML_INSTEAD =
  "(?:(?:an)?statt\\s+(?:den\\s+Text\\s+|die\\s+\\w+\\s+)?(?:zusammenzufassen|zu\\s+ubersetzen|zu\\s+beantworten|zu\\s+antworten)|au\\s+lieu\\s+de\\s+(?:resumer|traduire|repondre)|en\\s+(?:lugar|vez)\\s+de\\s+(?:resumir|traducir|responder|contestar)|em\\s+vez\\s+de\\s+(?:resumir|traduzir|responder)|ao\\s+inves\\s+de\\s+(?:resumir|traduzir|responder)|invece\\s+di\\s+(?:riassumere|tradurre|rispondere))";

/** "forget everything before" (EN, DE, FR, ES, PT, IT). */
const FORGET_EVERYTHING =
  "\\b(?:forget|ignore|disregard|erase|clear|drop)(?<!\\b(?:not|don't|dont|never)\\s+\\w+)\\s+(?:about\\s+)?(?:everything|all(?:\\s+of)?\\s+(?:that|this|the\\s+(?:above|previous|prior|earlier)(?:\\s+\\w+)?|(?:the\\s+|your\\s+)?(?:previous|prior|earlier|preceding|above)\\s+(?:information|tasks?|assignments?|context|conversation|input|texts?|articles?|documents?|messages?|content)))(?:\\s+(?:that\\s+)?(?:was\\s+|has\\s+been\\s+|we\\s+|I\\s+|you\\s+(?:were|have\\s+been)\\s+)?(?:said|written|stated|mentioned|provided|given|discussed|told|shown|wrote|sent))?\\s+(?:before(?:\\s+(?:that|this|now))?(?!\\s+(?:the|a|an|our|my|your|his|her|their|we|you|I|it|he|she|they|\\d)\\b)|above|earlier|previously|so\\s+far|beforehand|up\\s+to\\s+(?:now|here|this\\s+point)|until\\s+now)\\b" +
  "|\\b(?:forget|ignore|disregard|leave)\\s+(?:about\\s+)?all\\s+(?:the\\s+|of\\s+the\\s+|your\\s+)?(?:previous|prior|earlier|preceding)\\s+(?:information|tasks|assignments|context|input|texts|articles|documents)\\b" +
  "|\\b(?:forget|disregard)(?<!\\b(?:not|don't|dont|never)\\s+\\w+)\\s+(?:about\\s+)?all\\s+(?:the\\s+|your\\s+|of\\s+the\\s+)?(?:tasks|assignments)\\b" +
  // "forget everything, write …": an override followed straight by a new order
  // ("forget about everything and tell me …" joins them with "and"; "forget everything from before, …").
  "|\\b(?:forget|ignore|disregard)(?<!\\b(?:not|don't|dont|never)\\s+\\w+)\\s+(?:about\\s+)?everything(?:\\s+from\\s+before)?(?:\\s*[,.;:!—–-]+\\s*|\\s+(?=and\\b))(?:and\\s+|now\\s+|then\\s+|just\\s+)?(?:write|say|tell|print|output|respond|reply|answer|repeat|show|list|give|act|pretend|translate|generate|you\\s+(?:are|now|will)|from\\s+now)\\b" +
  "|\\b(?:vergiss|vergesst|vergessen\\s+Sie)\\s+alles\\s*[,.;:!—–-]+\\s*(?:und\\s+|jetzt\\s+|nun\\s+)?(?:schreib|schreibe|schreiben\\s+Sie|sag|sage|sagen\\s+Sie|gib|geben\\s+Sie|zeig|zeige|zeigen\\s+Sie|antworte|antworten\\s+Sie|erzahl|erzahle|wiederhole|ubersetze)\\b" +
  "|\\b(?:olvida|olvide|olvidar)\\s+todo\\s*[,.;:!—–-]+\\s*(?:y\\s+|ahora\\s+)?(?:escribe|escriba|di|diga|dime|responde|responda|repite|muestra|traduce)\\b" +
  "|\\b(?:ignore|disregard|forget)\\s+(?:all\\s+|any\\s+|the\\s+)?(?:provided|given|retrieved|supplied)\\s+(?:context|documents|articles|sources|search\\s+results|information)\\b" +
  "|\\b(?:ignore|disregard|forget)\\s+(?:all\\s+|any\\s+|the\\s+)?(?:context|documents|articles|sources|search\\s+results)\\s+(?:provided|given|above|supplied)\\b" +
  "|\\b(?:vergiss|vergesst|vergessen\\s+Sie|ignoriere|ignorieren\\s+Sie)(?<!\\b(?:wie|etwa|z\\.\\s?B\\.|zum\\s+Beispiel)\\s*[:,]?\\s*[\"'“‘«„‚»]\\s*(?:vergiss|vergesst|vergessen\\s+Sie|ignoriere|ignorieren\\s+Sie))\\s+(?:nun\\s+|jetzt\\s+|bitte\\s+)?(?:alles(?:,?\\s+was\\s+(?:wir|ich|du|Sie|man)\\s+(?:\\w+\\s+){0,3}?(?:besprochen|gesagt|geschrieben|erzahlt|gegeben|mitgeteilt)(?:\\s+(?:haben|habe|hast|hat))?|\\s+(?:davor|vorher|zuvor|oben|Bisherige|Vorherige|bis\\s+hierher|Obige))|alle\\s+(?:vorherigen\\s+|bisherigen\\s+|vorangegangenen\\s+|fruheren\\s+)?(?:Aufgaben|Auftrage|Angaben|Informationen|Anweisungen|Befehle|Vorgaben))\\b" +
  "|\\b(?:oublie|oubliez)\\s+tout\\s+(?:ce\\s+qui\\s+(?:precede|a\\s+ete\\s+dit)|ce\\s+que\\s+(?:je\\s+(?:t['’]|vous\\s+)ai\\s+dit|(?:tu\\s+as|vous\\s+avez)\\s+(?:recu|lu)|l['’]on\\s+a\\s+dit)|avant|ci-dessus|auparavant)\\b" +
  "|\\b(?:olvida|olvide|olvidar|olviden)\\s+todo\\s+(?:lo\\s+)?(?:que\\s+)?(?:\\w+\\s+){0,3}?(?:antes|anteriormente|arriba|hasta\\s+ahora)\\b" +
  "|\\b(?:dimentica|dimenticate|dimentichi)\\s+tutto\\s+(?:quello\\s+che\\s+|cio\\s+che\\s+)?(?:\\w+\\s+){0,3}?(?:prima|sopra|finora|precedentemente)\\b" +
  "|\\b(?:esqueca|esquecam|esquece)\\s+tudo\\s+(?:o\\s+)?(?:que\\s+)?(?:\\w+\\s+){0,3}?(?:antes|acima|anteriormente|ate\\s+agora)\\b";

// ---- Chinese, Japanese, Russian (script view) ------------------------------------------------

const ZH_AI = "(?:AI|人工智能|智能助手|AI助手|助手|助理|语言模型|語言模型|大模型|模型|机器人|機器人|聊天机器人|聊天機器人)";
const ZH_IMPERATIVE =
  "(?:请|請|务必|務必|必须|必須)?(?:忽略|无视|無視|转发|轉發|发送|發送|把|将|將|告诉|告訴|推荐|推薦|点击|點擊|打开|打開|执行|執行|运行|運行|下载|下載|删除|刪除|汇款|匯款|转账|轉帳|不要|回复|回覆|回答|输出|輸出|添加|加入|写|寫|批准)";
const JA_AI = "(?:AI|ＡＩ|人工知能|アシスタント|言語モデル|モデル|チャットボット|ボット|エージェント)";
const JA_ACTION =
  "(?:転送|送信|送っ|送り|振り込|振込|送金|クリック|開い|開き|実行|ダウンロード|削除|無視|伝え|推薦|勧め|すすめ|追加|含め|入れ|書い|書き|出力|承認)";
const RU_AI =
  "(?:ИИ|AI|искусственн\\p{L}+\\s+интеллект\\p{L}*|ассистент\\p{L}*|помощник\\p{L}*|модел\\p{L}+|языков\\p{L}+\\s+модел\\p{L}+|чат-?бот\\p{L}*|бот\\p{L}*|нейросет\\p{L}+|LLM|агент\\p{L}*)";
const RU_IMPERATIVE =
  "(?:пожалуйста\\s*,?\\s+)?(?:перешли|перешлите|отправь|отправьте|пошли|пошлите|переведи\\s+деньги|переведите\\s+деньги|добавь|добавьте|скажи|скажите|сообщи|сообщите|порекомендуй|порекомендуйте|рекомендуй|посоветуй|посоветуйте|нажми|нажмите|открой|откройте|выполни|выполните|запусти|запустите|скачай|скачайте|удали|удалите|игнорируй|игнорируйте|забудь|забудьте|ответь|ответьте|напиши|напишите|укажи|укажите|одобри|одобрите|не\\s+\\p{L}+|ты\\s+должен|вы\\s+должны)(?!\\p{L})";

/** The indirect-injection and override rules in other languages, appended to the built-in rule table by rules.ts. */
export const MULTILINGUAL_RULES: readonly Rule[] = Object.freeze([
  // An AI addressee followed by an imperative (DE, FR, ES, PT, IT).
  rule(L.AI_ADDRESSED_INSTRUCTION, `\\b(?:${ML_NOTE}|${ML_IF_AI})\\b${GAP(60)}${STOP}${ML_IMPERATIVE}`),
  // The same in Chinese, Japanese and Russian.
  rule(
    L.AI_ADDRESSED_INSTRUCTION,
    `(?:致|给|給|写给|寫給|注意|提示|说明|說明|备注|備註|指示|留言)[:：]?\\s*(?:任何|所有|正在(?:阅读|閱讀|处理|處理|总结|總結|翻译|翻譯)[^\\n。！？]{0,10}的)?${ZH_AI}[^\\n。！？]{0,10}[:：,，]\\s*${ZH_IMPERATIVE}` +
      `|如果你是(?:一个|一個|一名)?${ZH_AI}[^\\n。！？]{0,20}?[,，:：。]?\\s*${ZH_IMPERATIVE}` +
      `|(?:${JA_AI})(?:の(?:皆様|方))?(?:へ|に)(?:の)?(?:注意|メモ|指示|メッセージ|お願い|注記)?[:：、,]\\s*[^\\n。]{0,60}?${JA_ACTION}` +
      `|(?:あなたが|もしあなたが)${JA_AI}(?:である|なら|の場合|であれば)[^\\n。]{0,60}?${JA_ACTION}` +
      `|(?:примечание|заметка|сообщение|инструкци\\p{L}*|внимание|указание)\\s+(?:для|к)\\s+(?:\\p{L}+\\s+)?${RU_AI}(?!\\p{L})[^\\n.!?]{0,60}?[:,;—–-]\\s*${RU_IMPERATIVE}` +
      `|если(?<!\\p{L}если)\\s+(?:ты|вы)\\s+(?:—\\s*|-\\s*)?(?:\\p{L}+\\s+)?${RU_AI}(?!\\p{L})[^\\n.!?]{0,60}?[,:;—–-]\\s*${RU_IMPERATIVE}`,
    { scope: "script", flags: "iu" },
  ),
  // Something planted in "your answer", or the task replaced (DE, FR, ES, PT, IT).
  rule(
    L.OUTPUT_TAMPERING,
    // Each needs a planted object: "nennen Sie in Ihrer Antwort Ihre Kundennummer" asks a human for their own details.
    `\\b${ML_IN_ANSWER}\\s*,?\\s+(?:(?:bitte|auch|immer|veuillez|aussi|toujours|por\\s+favor|tambien|sempre|anche|per\\s+favore)\\s+)?${ML_PLANT}${GAP(60)}${ML_PLANTED}` +
      `|\\b${ML_PLANT}\\s+(?:\\w+\\s+){0,2}?${ML_PLANTED}${GAP(80)}\\b${ML_IN_ANSWER}\\b` +
      `|\\b${ML_PLANT}\\s+${ML_IN_ANSWER}\\s*,?\\s+(?:\\w+\\s+){0,2}?${ML_PLANTED}`,
  ),
  rule(L.TASK_HIJACK, `\\b${ML_INSTEAD}\\b${GAP(60)}[,;:]?\\s*${ML_IMPERATIVE}`),
  // The same in Chinese, Japanese and Russian.
  rule(
    L.OUTPUT_TAMPERING,
    // Each needs a planted object: "note your order number in your reply" asks a human for their own details.
    "在(?:你的|您的|你|您)?(?:回答|回复|回覆|答复|答覆|响应|回應|总结|總結|摘要|翻译|翻譯)(?:中|里|裡|里面|末尾|结尾|結尾|开头|開頭)[,，]?\\s*(?:请|請|务必|務必|一定要|也)?(?:加入|添加|包含|附上|插入|提到|提及|推荐|推薦|告诉|告訴|写上|寫上|加上|注明)[^\\n。！？]{0,12}?(?:链接|鏈接|网址|網址|URL|网站|網站|广告|廣告|这句话|這句話|这段话|這段話|以下|下面的|如下|图片|圖片|推广|推廣)" +
      "|(?:回答|返答|応答|返信|要約|翻訳)の(?:中|最後|最初|末尾|冒頭)に[^\\n。]{0,30}?(?:リンク|URL|ＵＲＬ|サイト|広告|画像|次の|以下の|この(?:文|文章|メッセージ|フレーズ|テキスト))[^\\n。]{0,20}?(?:を)?(?:(?:追加|記載|挿入)(?:し|す)|(?:含め|入れ|付け加え|書き加え)(?:て|る|な))" +
      "|в(?<!\\p{L}в)\\s+(?:сво[её]м|вашем|тво[её]м|этом)\\s+(?:ответе|резюме|пересказе|переводе)\\s*,?\\s*(?:обязательно\\s+|также\\s+|пожалуйста\\s*,?\\s+)?(?:добавь|добавьте|укажи|укажите|упомяни|упомяните|включи|включите|вставь|вставьте|порекомендуй|порекомендуйте|посоветуй|посоветуйте|скажи|скажите|напиши|напишите)(?!\\p{L})[^\\n.!?]{0,40}?(?:ссылк|URL|сайт|реклам|фраз|следующ|изображени|картинк|промокод)",
    { scope: "script", flags: "iu" },
  ),
  rule(
    L.TASK_HIJACK,
    "(?:不要|别|別|请勿|請勿)(?:总结|總結|翻译|翻譯|回答|概括)[^\\n。！？]{0,20}?[,，;；。]\\s*(?:而是|相反|反而|改为|改為)" +
      "|(?:与其|與其|而不是)(?:总结|總結|翻译|翻譯|回答)[^\\n。！？]{0,30}?(?:请|請|不如|要|应该|應該)" +
      "|(?:要約|翻訳|回答)(?:する)?(?:の)?(?:ではなく|代わりに|かわりに)[、,]?[^\\n。]{0,40}?(?:して|しなさい|ください|せよ|する)" +
      "|вместо(?<!\\p{L}вместо)\\s+того\\s*,?\\s*чтобы\\s+(?:резюмировать|пересказать|перевести|ответить|суммировать|кратко\\s+изложить)(?!\\p{L})[^\\n.!?]{0,60}?[,;:]?\\s*" +
      RU_IMPERATIVE,
    { scope: "script", flags: "iu" },
  ),
  // "forget everything before" and "ignore the provided context" (EN, DE, FR, ES, PT, IT).
  rule(L.INSTRUCTION_OVERRIDE, FORGET_EVERYTHING),
  rule(
    L.INSTRUCTION_OVERRIDE,
    "(?<!不要|别|別|请勿|請勿|不能)(?:忘记|忘記|忘掉|忽略|无视|無視)(?:之前|以前|上面|上述|前面|先前|此前)(?:的|所)?(?:所有|一切|全部)?(?:内容|內容|信息|資訊|对话|對話|任务|任務|说明|說明|要求|一切)" +
      "|(?:これまで|以前|前|上記|上)の(?:指示|命令|内容|会話|指令|ルール|すべて|全て|タスク)を?(?:すべて|全て)?(?:無視|忘れ)" +
      "|(?:забудь|забудьте|игнорируй|игнорируйте|проигнорируй)(?<!(?:\\p{L}|не\\s)(?:забудь|забудьте|игнорируй|игнорируйте|проигнорируй))\\s+(?:вс[её],?\\s+(?:\\p{L}+\\s+){0,4}?(?:выше|раньше|ранее|прежде|до\\s+этого)|все\\s+(?:предыдущие|прошлые|прежние)\\s+(?:задани|задач|сообщени|данн|указани|инструкци)\\p{L}*)(?!\\p{L})",
    { scope: "script", flags: "iu" },
  ),
  // Refusal suppression (DE, FR, ES, PT, IT): a negation, then a quoted refusal in the sentence,
  // held as in English only for an AI's refusal ("als KI", "como IA") or a list of quoted phrases.
  rule(
    L.REFUSAL_SUPPRESSION,
    `\\b(?:nie(?:mals)?|nicht|keine?n?|jamais|pas|nunca|jamas|no|nao|mai|non)\\b${GAP(50)}["“'‘«„‚]\\s*(?:ich\\s+kann\\s+(?:das\\s+|dir\\s+|Ihnen\\s+)?(?:nicht|leider\\s+nicht)|es\\s+tut\\s+mir\\s+leid|leider|als\\s+(?:eine\\s+)?KI\\b|je\\s+ne\\s+peux\\s+pas|je\\s+suis\\s+desole|desole|en\\s+tant\\s+qu['’]\\s*(?:IA|intelligence\\s+artificielle)\\b|no\\s+puedo|lo\\s+siento|como\\s+(?:una\\s+)?IA\\b|nao\\s+posso|desculpe|sinto\\s+muito|como\\s+(?:uma\\s+)?IA\\b|non\\s+posso|mi\\s+dispiace|come\\s+(?:un['’]\\s*)?IA\\b)`,
    { accept: (m) => /\b(?:KI|IA|intelligence)\b/i.test(m[0].slice(-40)) || quotedListFollows(m.input.slice(m.index + m[0].length)) },
  ),
  // The same in Chinese, Japanese and Russian (script view).
  rule(
    L.REFUSAL_SUPPRESSION,
    "(?:不要|别|別|禁止|永远不要|永遠不要|绝不|絕不|不许|不許|不准)[^\\n。！？]{0,20}?(?:说|說|使用|回答|包含|写|寫)[^\\n。！？]{0,20}?[“「\"'『](?:我不能|我无法|我無法|抱歉|对不起|對不起|作为(?:一个)?(?:AI|人工智能)|作為(?:一個)?(?:AI|人工智慧))" +
      '|[「『“"](?:できません|申し訳(?:ありません|ございません)|すみません|AIとして|お答えできません)[^」』”"\\n]{0,20}[」』”"][^\\n。]{0,12}?(?:と|など)(?:は|も)?(?:絶対に)?(?:言わ|答え|書か|使わ)(?:ないで|ない|ず|ぬ)' +
      '|(?<!\\p{L})(?:никогда\\s+не|не)\\s+(?:говори|говорите|пиши|пишите|используй|используйте|отвечай|отвечайте)(?!\\p{L})[^\\n.!?]{0,40}?[«"„“]\\s*(?:я\\s+не\\s+могу|извини|извините|к\\s+сожалению|как\\s+(?:ИИ|искусственный\\s+интеллект))',
    {
      scope: "script",
      flags: "iu",
      accept: (m) =>
        /AI|人工智|ИИ|интеллект/iu.test(m[0]) || quotedListFollows(m.input.slice(m.index + m[0].length)) || quotedListPrecedes(m.input.slice(0, m.index)),
    },
  ),
]);
