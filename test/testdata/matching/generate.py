#!/usr/bin/env python3
"""Writes the column-matching evaluation set: made-up files and their labels.

Each file is a CSV (some without a header row) of 40 rows, written as people and
programs export them: headers in English, German, French, Spanish, Italian,
Portuguese or Dutch, abbreviations, vendor-style names and generic ones
(Column 7), values in the formats of the file's country, some of them blank or
broken, and columns the target schema has no field for. labels.json says, for
every column, the field it belongs to or "none", and which schema the file is
for (schemas/*.json).

The header spellings for each field and language are listed below and split in
two: files of split "a" take the even-numbered ones, files of split "b" the
odd-numbered ones. The matcher was tuned on split "a" only; split "b" is the
held-out check (domain/normalize/matching_eval_test.go reports both).

Run from this directory: python3 generate.py (deterministic).
"""
import csv
import json
import random

R = random.Random(24)
LANGS = ["en", "de", "fr", "es", "it", "pt", "nl"]

# ---------------------------------------------------------------- headers
# field -> language -> spellings (alternating between the two splits).
H = {
    "id": {
        "en": ["Customer ID", "Cust. No.", "Record ID", "Account Number", "ID", "Customer Number"],
        "de": ["Kundennummer", "Kd.-Nr.", "Kunden-ID", "Nr.", "Kundennr", "ID"],
        "fr": ["N° client", "Identifiant", "Numéro client", "Réf. client", "Code client", "ID"],
        "es": ["Nº cliente", "Número de cliente", "ID cliente", "Código cliente", "Referencia", "Id"],
        "it": ["Codice cliente", "N. cliente", "ID cliente", "Numero cliente", "Cod. cliente", "Id"],
        "pt": ["Nº cliente", "Código do cliente", "ID cliente", "Número de cliente", "Cód. cliente", "Id"],
        "nl": ["Klantnummer", "Klant-ID", "Klantnr.", "Nummer", "Relatienummer", "ID"],
        "vendor": ["cust_id", "CUSTNO", "acct_num", "rec_id", "customerId", "KUNNR"],
    },
    "first_name": {
        "en": ["First Name", "Given name", "Forename", "FIRST NAME", "First", "First name(s)"],
        "de": ["Vorname", "Vorname(n)", "VORNAME", "Rufname", "Vorn.", "Vorname Kunde"],
        "fr": ["Prénom", "PRENOM", "Prénom(s)", "Prenom", "Prénom du client", "Prénom usuel"],
        "es": ["Nombre", "Nombre de pila", "NOMBRE", "Nombre(s)", "Primer nombre", "Nombre cliente"],
        "it": ["Nome", "NOME", "Nome di battesimo", "Nome proprio", "Nome cliente", "Nome/i"],
        "pt": ["Primeiro nome", "Nome próprio", "PRIMEIRO NOME", "Nome", "Prenome", "Primeiro Nome"],
        "nl": ["Voornaam", "Voornamen", "VOORNAAM", "Roepnaam", "Voorn.", "Voornaam klant"],
        "vendor": ["fname", "first_nm", "FIRSTNAME", "givenName", "f_name", "NAME_FIRST"],
    },
    "last_name": {
        "en": ["Last Name", "Surname", "Family name", "LAST NAME", "Last", "Lastname"],
        "de": ["Nachname", "Familienname", "NACHNAME", "Zuname", "Name", "Nachname Kunde"],
        "fr": ["Nom", "Nom de famille", "NOM", "Nom de naissance", "Nom du client", "Patronyme"],
        "es": ["Apellidos", "Apellido", "APELLIDOS", "Primer apellido", "Apellido(s)", "Apellidos cliente"],
        "it": ["Cognome", "COGNOME", "Cognome cliente", "Cognome/i", "Cognome e", "Cognome (famiglia)"],
        "pt": ["Apelido", "Sobrenome", "APELIDO", "Último nome", "Apelidos", "Sobrenome cliente"],
        "nl": ["Achternaam", "Familienaam", "ACHTERNAAM", "Achternaam klant", "Naam", "Geslachtsnaam"],
        "vendor": ["lname", "last_nm", "LASTNAME", "surName", "l_name", "NAME_LAST"],
    },
    "name": {
        "en": ["Full Name", "Name", "Contact Name", "Customer", "Customer Name", "Contact person"],
        "de": ["Name", "Vollständiger Name", "Kunde", "Ansprechpartner", "Kundenname", "Vor- und Nachname"],
        "fr": ["Nom complet", "Nom et prénom", "Client", "Contact", "Nom du client", "Interlocuteur"],
        "es": ["Nombre completo", "Nombre y apellidos", "Cliente", "Contacto", "Nombre del cliente", "Persona de contacto"],
        "it": ["Nome e cognome", "Nominativo", "Cliente", "Referente", "Nome completo", "Intestatario"],
        "pt": ["Nome completo", "Nome", "Cliente", "Contacto", "Nome do cliente", "Titular"],
        "nl": ["Naam", "Volledige naam", "Klant", "Contactpersoon", "Klantnaam", "Naam klant"],
        "vendor": ["full_nm", "cust_name", "CONTACT_NAME", "displayName", "name_full", "cname"],
    },
    "email": {
        "en": ["Email", "E-mail address", "Email Address", "Mail", "Contact email", "E-Mail"],
        "de": ["E-Mail", "E-Mail-Adresse", "Email-Adresse", "Mailadresse", "E-Mail (geschäftlich)", "Mail"],
        "fr": ["Courriel", "Adresse e-mail", "Adresse électronique", "E-mail", "Mél", "Adresse courriel"],
        "es": ["Correo electrónico", "Correo", "E-mail", "Email de contacto", "Dirección de correo", "Correo-e"],
        "it": ["E-mail", "Indirizzo email", "Posta elettronica", "Email", "Indirizzo e-mail", "Mail"],
        "pt": ["E-mail", "Endereço de e-mail", "Correio eletrónico", "Email", "Correio electrónico", "Endereço eletrônico"],
        "nl": ["E-mailadres", "E-mail", "Emailadres", "Mailadres", "E-mail adres", "Email"],
        "vendor": ["cust_eml", "email_addr", "EMAIL_ADDRESS", "emailAddress", "eml", "CONTACT_EMAIL"],
    },
    "phone": {
        "en": ["Phone", "Tel.", "Phone Number", "Mobile", "Telephone", "Cell phone"],
        "de": ["Telefon", "Tel.", "Telefonnummer", "Mobil", "Handy", "Tel.-Nr."],
        "fr": ["Téléphone", "Tél.", "Portable", "N° de téléphone", "Tel", "Numéro de portable"],
        "es": ["Teléfono", "Tfno.", "Móvil", "Número de teléfono", "Tel.", "Celular"],
        "it": ["Telefono", "Tel.", "Cellulare", "Numero di telefono", "Cell.", "Recapito telefonico"],
        "pt": ["Telefone", "Telemóvel", "Tel.", "Número de telefone", "Celular", "Contacto telefónico"],
        "nl": ["Telefoon", "Tel.", "Telefoonnummer", "Mobiel", "GSM", "Mobiel nummer"],
        "vendor": ["ph_no", "phone_num", "PHONE1", "mobilePhone", "tel_nr", "CONTACT_PHONE"],
    },
    "company": {
        "en": ["Company", "Organization", "Company Name", "Employer", "Business name", "Account"],
        "de": ["Firma", "Unternehmen", "Firmenname", "Arbeitgeber", "Firmierung", "Organisation"],
        "fr": ["Société", "Entreprise", "Raison sociale", "Employeur", "Nom de la société", "Organisme"],
        "es": ["Empresa", "Compañía", "Razón social", "Organización", "Nombre de empresa", "Entidad"],
        "it": ["Azienda", "Società", "Ragione sociale", "Ditta", "Denominazione", "Impresa"],
        "pt": ["Empresa", "Companhia", "Razão social", "Organização", "Nome da empresa", "Entidade"],
        "nl": ["Bedrijf", "Bedrijfsnaam", "Organisatie", "Werkgever", "Firma", "Onderneming"],
        "vendor": ["company_nm", "org_name", "COMPANY", "companyName", "comp", "ACCOUNT_NAME"],
    },
    "street": {
        "en": ["Street", "Address", "Street Address", "Address Line 1", "Street and number", "Addr."],
        "de": ["Straße", "Strasse", "Straße und Hausnummer", "Anschrift", "Str.", "Adresse"],
        "fr": ["Adresse", "Rue", "Adresse postale", "Voie", "N° et rue", "Adresse 1"],
        "es": ["Dirección", "Calle", "Domicilio", "Dirección postal", "Calle y número", "Dir."],
        "it": ["Indirizzo", "Via", "Via e numero civico", "Domicilio", "Indirizzo (via)", "Strada"],
        "pt": ["Morada", "Endereço", "Rua", "Logradouro", "Morada (rua)", "Endereço postal"],
        "nl": ["Adres", "Straat", "Straat en huisnummer", "Straatnaam", "Postadres", "Adresregel 1"],
        "vendor": ["addr1", "street_addr", "ADDRESS_LINE1", "streetAddress", "addr_ln_1", "BILL_STREET"],
    },
    "city": {
        "en": ["City", "Town", "City/Town", "Locality", "CITY", "Municipality"],
        "de": ["Ort", "Stadt", "Wohnort", "Ortschaft", "ORT", "Gemeinde"],
        "fr": ["Ville", "Localité", "Commune", "VILLE", "Ville de résidence", "Localite"],
        "es": ["Ciudad", "Localidad", "Población", "Municipio", "CIUDAD", "Ciudad de residencia"],
        "it": ["Città", "Comune", "Località", "CITTA", "Citta", "Città di residenza"],
        "pt": ["Cidade", "Localidade", "Concelho", "Município", "CIDADE", "Cidade de residência"],
        "nl": ["Plaats", "Woonplaats", "Stad", "Plaatsnaam", "PLAATS", "Gemeente"],
        "vendor": ["city_nm", "cty", "CITY", "addressCity", "town", "BILL_CITY"],
    },
    "postal_code": {
        "en": ["ZIP", "Postal Code", "Zip Code", "Postcode", "ZIP/Postal code", "Post code"],
        "de": ["PLZ", "Postleitzahl", "Plz", "PLZ (Wohnort)", "P.L.Z.", "Postleitzahl Ort"],
        "fr": ["Code postal", "CP", "C.P.", "Code Postal", "NPA", "Cp"],
        "es": ["Código postal", "C.P.", "CP", "Cód. postal", "Codigo Postal", "Cod. Postal"],
        "it": ["CAP", "C.A.P.", "Codice postale", "Cap", "Codice di avviamento postale", "CAP residenza"],
        "pt": ["Código postal", "CEP", "Cód. postal", "C. Postal", "Codigo postal", "CP"],
        "nl": ["Postcode", "POSTCODE", "Post code", "Postcode (PC)", "Pc", "Postcode woonadres"],
        "vendor": ["zip_cd", "postal_cd", "ZIP5", "postalCode", "zipcode", "BILL_ZIP"],
    },
    "country": {
        "en": ["Country", "Country/Region", "Country Code", "Nation", "COUNTRY", "Ctry"],
        "de": ["Land", "Länderkennzeichen", "Staat", "Land (ISO)", "LAND", "Ländercode"],
        "fr": ["Pays", "Code pays", "PAYS", "Pays de résidence", "Pays (ISO)", "Pays/Région"],
        "es": ["País", "Pais", "Código de país", "PAÍS", "País de residencia", "Nación"],
        "it": ["Paese", "Nazione", "Stato", "Codice paese", "PAESE", "Nazione (ISO)"],
        "pt": ["País", "Pais", "Código do país", "PAÍS", "País de residência", "Nação"],
        "nl": ["Land", "Landcode", "LAND", "Land (ISO)", "Land van verblijf", "Landnaam"],
        "vendor": ["ctry_cd", "country_iso", "CNTRY", "countryCode", "cntry_nm", "BILL_COUNTRY"],
    },
    "date_of_birth": {
        "en": ["Date of Birth", "DOB", "Birth date", "Birthday", "D.O.B.", "Born"],
        "de": ["Geburtsdatum", "Geb.-Datum", "Geboren am", "Geburtstag", "Geb. am", "GEBURTSDATUM"],
        "fr": ["Date de naissance", "Né(e) le", "Date naissance", "Naissance", "DDN", "Date de naiss."],
        "es": ["Fecha de nacimiento", "F. nacimiento", "Fecha nac.", "Nacimiento", "Fec. nacimiento", "FECHA NACIMIENTO"],
        "it": ["Data di nascita", "Data nascita", "Nato il", "Nascita", "Data di nascita (gg/mm/aaaa)", "DATA NASCITA"],
        "pt": ["Data de nascimento", "Data nasc.", "Nascimento", "Dt. nascimento", "Data de Nascimento", "DATA NASCIMENTO"],
        "nl": ["Geboortedatum", "Geb. datum", "Geboren", "Geboortedag", "GEBOORTEDATUM", "Geboren op"],
        "vendor": ["dob", "birth_dt", "BIRTHDATE", "dateOfBirth", "bday", "DT_BIRTH"],
    },
    "order_date": {
        "en": ["Order Date", "Date", "Invoice date", "Transaction Date", "Ordered on", "Purchase date"],
        "de": ["Bestelldatum", "Datum", "Rechnungsdatum", "Belegdatum", "Auftragsdatum", "Bestellt am"],
        "fr": ["Date de commande", "Date", "Date facture", "Date d'achat", "Date commande", "Commandé le"],
        "es": ["Fecha de pedido", "Fecha", "Fecha factura", "Fecha de compra", "Fecha pedido", "Fecha de la orden"],
        "it": ["Data ordine", "Data", "Data fattura", "Data acquisto", "Data dell'ordine", "Data documento"],
        "pt": ["Data do pedido", "Data", "Data da fatura", "Data de compra", "Data encomenda", "Data da encomenda"],
        "nl": ["Besteldatum", "Datum", "Factuurdatum", "Orderdatum", "Datum bestelling", "Aankoopdatum"],
        "vendor": ["order_dt", "ord_date", "ORDERDATE", "orderDate", "txn_dt", "DOC_DATE"],
    },
    "quantity": {
        "en": ["Quantity", "Qty", "Units", "Qty.", "Number of items", "Pieces"],
        "de": ["Menge", "Anzahl", "Stückzahl", "Stk.", "Anz.", "Bestellmenge"],
        "fr": ["Quantité", "Qté", "Nombre", "Qte", "Nb d'articles", "Quantité commandée"],
        "es": ["Cantidad", "Cant.", "Unidades", "Uds.", "Número de unidades", "Cantidad pedida"],
        "it": ["Quantità", "Q.tà", "Qta", "Pezzi", "Numero pezzi", "Quantità ordinata"],
        "pt": ["Quantidade", "Qtd.", "Qtde", "Unidades", "Nº de unidades", "Quantidade encomendada"],
        "nl": ["Aantal", "Hoeveelheid", "Aant.", "Stuks", "Aantal stuks", "Besteld aantal"],
        "vendor": ["qty", "qty_ord", "QUANTITY", "orderQty", "qnty", "MENGE"],
    },
    "unit_price": {
        "en": ["Unit Price", "Price", "Price per unit", "Unit cost", "Rate", "List price"],
        "de": ["Einzelpreis", "Preis", "Stückpreis", "E-Preis", "Preis/Stk.", "Listenpreis"],
        "fr": ["Prix unitaire", "Prix", "P.U.", "Prix HT", "Tarif", "Prix de vente"],
        "es": ["Precio unitario", "Precio", "P. unitario", "Precio/ud.", "Tarifa", "PVP"],
        "it": ["Prezzo unitario", "Prezzo", "Prezzo unit.", "Costo unitario", "Tariffa", "Prezzo di listino"],
        "pt": ["Preço unitário", "Preço", "Preço unit.", "Valor unitário", "Tarifa", "PVP"],
        "nl": ["Stukprijs", "Prijs", "Eenheidsprijs", "Prijs per stuk", "Tarief", "Verkoopprijs"],
        "vendor": ["unit_prc", "price_unit", "UNITPRICE", "unitPrice", "prc", "NETPR"],
    },
    "amount": {
        "en": ["Amount", "Total", "Order Total", "Total amount", "Net amount", "Grand total"],
        "de": ["Betrag", "Gesamtbetrag", "Summe", "Rechnungsbetrag", "Gesamt", "Nettobetrag"],
        "fr": ["Montant", "Total", "Montant total", "Montant TTC", "Somme", "Total commande"],
        "es": ["Importe", "Total", "Importe total", "Monto", "Suma", "Total pedido"],
        "it": ["Importo", "Totale", "Importo totale", "Totale ordine", "Imponibile", "Somma"],
        "pt": ["Montante", "Total", "Valor total", "Valor", "Total da encomenda", "Quantia"],
        "nl": ["Bedrag", "Totaal", "Totaalbedrag", "Som", "Totaal order", "Factuurbedrag"],
        "vendor": ["amt", "total_amt", "AMOUNT", "orderTotal", "net_amt", "WRBTR"],
    },
    "currency": {
        "en": ["Currency", "Currency Code", "CCY", "Curr.", "ISO currency", "Cur"],
        "de": ["Währung", "Währungscode", "Whg.", "WÄHRUNG", "Währung (ISO)", "Waehrung"],
        "fr": ["Devise", "Monnaie", "Code devise", "DEVISE", "Devise (ISO)", "Dev."],
        "es": ["Moneda", "Divisa", "Código de moneda", "MONEDA", "Moneda (ISO)", "Mon."],
        "it": ["Valuta", "Divisa", "Codice valuta", "VALUTA", "Valuta (ISO)", "Val."],
        "pt": ["Moeda", "Divisa", "Código da moeda", "MOEDA", "Moeda (ISO)", "Moe."],
        "nl": ["Valuta", "Munteenheid", "Valutacode", "VALUTA", "Valuta (ISO)", "Val."],
        "vendor": ["curr_cd", "ccy_code", "CURRENCY", "currencyCode", "cur", "WAERS"],
    },
    "order_id": {
        "en": ["Order ID", "Order No.", "Order Number", "Invoice No", "Reference", "Order #"],
        "de": ["Bestellnummer", "Auftragsnr.", "Belegnummer", "Rechnungsnummer", "Bestell-Nr.", "Auftragsnummer"],
        "fr": ["N° de commande", "Numéro de commande", "Réf. commande", "N° facture", "Référence", "Commande n°"],
        "es": ["Nº de pedido", "Número de pedido", "Ref. pedido", "Nº factura", "Referencia", "Pedido nº"],
        "it": ["N. ordine", "Numero ordine", "Rif. ordine", "N. fattura", "Riferimento", "Ordine n."],
        "pt": ["Nº da encomenda", "Número do pedido", "Ref. encomenda", "Nº fatura", "Referência", "Pedido nº"],
        "nl": ["Ordernummer", "Bestelnummer", "Ordernr.", "Factuurnummer", "Referentie", "Bestelnr."],
        "vendor": ["order_no", "ord_id", "ORDERNUMBER", "orderId", "inv_no", "VBELN"],
    },
}

# Columns no field of any schema takes, as files have them.
EXTRAS = {
    "en": [("Notes", "note"), ("Created by", "user"), ("Fax", "phone"), ("Last modified", "datetime"), ("Tags", "tag"), ("Score", "int"), ("Source", "source"), ("Region", "region")],
    "de": [("Bemerkung", "note"), ("Erstellt von", "user"), ("Fax", "phone"), ("Geändert am", "datetime"), ("Kategorie", "tag"), ("Bewertung", "int"), ("Quelle", "source"), ("Bundesland", "region")],
    "fr": [("Remarques", "note"), ("Créé par", "user"), ("Fax", "phone"), ("Modifié le", "datetime"), ("Catégorie", "tag"), ("Note", "int"), ("Origine", "source"), ("Région", "region")],
    "es": [("Observaciones", "note"), ("Creado por", "user"), ("Fax", "phone"), ("Modificado el", "datetime"), ("Categoría", "tag"), ("Puntuación", "int"), ("Origen", "source"), ("Provincia", "region")],
    "it": [("Note", "note"), ("Creato da", "user"), ("Fax", "phone"), ("Modificato il", "datetime"), ("Categoria", "tag"), ("Punteggio", "int"), ("Fonte", "source"), ("Provincia", "region")],
    "pt": [("Observações", "note"), ("Criado por", "user"), ("Fax", "phone"), ("Modificado em", "datetime"), ("Categoria", "tag"), ("Pontuação", "int"), ("Origem", "source"), ("Distrito", "region")],
    "nl": [("Opmerkingen", "note"), ("Aangemaakt door", "user"), ("Fax", "phone"), ("Gewijzigd op", "datetime"), ("Categorie", "tag"), ("Score", "int"), ("Bron", "source"), ("Provincie", "region")],
    "vendor": [("notes_txt", "note"), ("crt_usr", "user"), ("fax_no", "phone"), ("upd_ts", "datetime"), ("tag_list", "tag"), ("lead_score", "int"), ("src_sys", "source"), ("state_cd", "region")],
}

# ---------------------------------------------------------------- values
COUNTRY_OF = {"en": "US", "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "pt": "PT", "nl": "NL"}
FIRST = {
    "US": ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Susan", "Ashley", "Kevin"],
    "DE": ["Lukas", "Anna", "Jonas", "Lea", "Felix", "Hannah", "Maximilian", "Sophie", "Jürgen", "Ursula", "Karl-Heinz", "Sabine"],
    "FR": ["Jean", "Marie", "Pierre", "Camille", "Louis", "Chloé", "Hugo", "Léa", "Jean-Pierre", "Élodie", "Mathieu", "Inès"],
    "ES": ["José", "María", "Antonio", "Carmen", "Javier", "Lucía", "Manuel", "Laura", "Alejandro", "Marta", "Sergio", "Paula"],
    "IT": ["Giuseppe", "Maria", "Marco", "Giulia", "Alessandro", "Francesca", "Luca", "Chiara", "Matteo", "Sara", "Davide", "Elena"],
    "PT": ["João", "Maria", "Pedro", "Ana", "Tiago", "Beatriz", "Rui", "Inês", "Miguel", "Sofia", "Gonçalo", "Mariana"],
    "NL": ["Daan", "Emma", "Sem", "Julia", "Lucas", "Tess", "Jan", "Anouk", "Pieter", "Fleur", "Bram", "Sanne"],
}
LAST = {
    "US": ["Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor", "Moore", "Clark"],
    "DE": ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Koch", "Richter"],
    "FR": ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy", "Moreau", "Lefèvre", "Garnier"],
    "ES": ["García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Martín", "Ruiz", "Díaz"],
    "IT": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Bruno", "Gallo"],
    "PT": ["Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins", "Sousa", "Fernandes", "Gonçalves", "Lopes"],
    "NL": ["de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Janssen", "Visser", "Smit", "Meijer", "de Boer", "Mulder"],
}
CITIES = {
    "US": ["Springfield", "Austin", "Denver", "Portland", "Chicago", "Boston", "Seattle", "Phoenix"],
    "DE": ["Berlin", "München", "Hamburg", "Köln", "Frankfurt am Main", "Leipzig", "Dresden", "Stuttgart"],
    "FR": ["Paris", "Lyon", "Marseille", "Toulouse", "Nantes", "Bordeaux", "Lille", "Strasbourg"],
    "ES": ["Madrid", "Barcelona", "Valencia", "Sevilla", "Zaragoza", "Málaga", "Bilbao", "Alicante"],
    "IT": ["Roma", "Milano", "Napoli", "Torino", "Bologna", "Firenze", "Genova", "Palermo"],
    "PT": ["Lisboa", "Porto", "Braga", "Coimbra", "Faro", "Aveiro", "Setúbal", "Funchal"],
    "NL": ["Amsterdam", "Rotterdam", "Utrecht", "Den Haag", "Eindhoven", "Groningen", "Tilburg", "Almere"],
}
STREETS = {
    "US": ["{n} Main St", "{n} Oak Avenue", "{n} Maple Dr.", "{n} Elm Street, Apt 4", "{n} Sunset Blvd"],
    "DE": ["Hauptstraße {n}", "Bahnhofstr. {n}", "Goethestraße {n}a", "Am Markt {n}", "Schillerweg {n}"],
    "FR": ["{n} rue de la Paix", "{n} avenue Victor Hugo", "{n} bd Voltaire", "{n}, place de la République", "{n} chemin des Vignes"],
    "ES": ["Calle Mayor {n}", "Avda. de la Constitución {n}", "C/ Alcalá {n}, 2º B", "Paseo del Prado {n}", "Plaza España {n}"],
    "IT": ["Via Roma {n}", "Corso Italia {n}", "Via Garibaldi {n}", "Piazza Duomo {n}", "Viale dei Mille {n}"],
    "PT": ["Rua Augusta {n}", "Avenida da Liberdade {n}", "Rua do Carmo {n}, 2º Esq", "Travessa do Sol {n}", "Praça do Comércio {n}"],
    "NL": ["Kerkstraat {n}", "Dorpsstraat {n}", "Stationsweg {n}", "Prinsengracht {n}", "Molenlaan {n}"],
}
LEGAL = {"US": ["Inc.", "LLC", "Corp."], "DE": ["GmbH", "AG", "GmbH & Co. KG"], "FR": ["SARL", "SAS", "SA"], "ES": ["S.L.", "S.A.", "SLU"],
         "IT": ["S.r.l.", "S.p.A.", "S.n.c."], "PT": ["Lda.", "S.A.", "Unipessoal Lda."], "NL": ["B.V.", "N.V.", "V.O.F."]}
COMPANY_WORDS = ["Acme", "Nordlicht", "Soleil", "Iberia", "Stella", "Atlântico", "Polder", "Vertex", "Bluebird", "Kronos", "Alpina", "Maris"]
COUNTRY_NAMES = {
    "US": ["USA", "United States", "US", "Canada", "Mexico"],
    "DE": ["Deutschland", "DE", "Österreich", "Schweiz", "Germany"],
    "FR": ["France", "FR", "Belgique", "Suisse", "Luxembourg"],
    "ES": ["España", "ES", "Portugal", "Francia", "Spain"],
    "IT": ["Italia", "IT", "Svizzera", "San Marino", "Italy"],
    "PT": ["Portugal", "PT", "Brasil", "Espanha", "Angola"],
    "NL": ["Nederland", "NL", "België", "Netherlands", "Duitsland"],
}
CURRENCIES = {"US": ["USD", "USD", "CAD", "$"], "DE": ["EUR", "EUR", "CHF", "€"], "FR": ["EUR", "€", "EUR", "CHF"], "ES": ["EUR", "€", "EUR", "USD"],
              "IT": ["EUR", "EUR", "€", "CHF"], "PT": ["EUR", "EUR", "€", "BRL"], "NL": ["EUR", "EUR", "€", "GBP"]}
MAIL_DOMAINS = ["gmail.com", "web.de", "orange.fr", "telefonica.es", "libero.it", "sapo.pt", "ziggo.nl", "example.com", "outlook.com", "acme.io"]
REGIONS = {"US": ["CA", "TX", "NY", "WA", "IL"], "DE": ["Bayern", "Berlin", "Hessen", "Sachsen"], "FR": ["Île-de-France", "Bretagne", "Occitanie"],
           "ES": ["Madrid", "Cataluña", "Andalucía"], "IT": ["Lombardia", "Lazio", "Toscana"], "PT": ["Lisboa", "Porto", "Faro"],
           "NL": ["Noord-Holland", "Utrecht", "Zuid-Holland"]}
NOTES = {"en": ["call back next week", "VIP", "prefers email", "", "moved in 2023"], "de": ["Rückruf erbeten", "Stammkunde", "", "nur per Mail"],
         "fr": ["rappeler lundi", "client fidèle", "", "préfère le courriel"], "es": ["llamar el lunes", "cliente VIP", "", "prefiere correo"],
         "it": ["richiamare", "cliente storico", "", "preferisce email"], "pt": ["ligar amanhã", "cliente VIP", "", "prefere email"],
         "nl": ["terugbellen", "vaste klant", "", "liever mail"]}

def fold(s):
    import unicodedata
    s = unicodedata.normalize("NFD", s)
    return "".join(c for c in s if unicodedata.category(c) != "Mn").lower().replace(" ", "").replace("'", "")

def v_date(cc, y, m, d, style):
    if style == "iso":
        return f"{y:04d}-{m:02d}-{d:02d}"
    if cc == "US":
        return f"{m}/{d}/{y}"
    if cc == "DE":
        return f"{d:02d}.{m:02d}.{y}"
    if cc == "NL":
        return f"{d:02d}-{m:02d}-{y}"
    return f"{d:02d}/{m:02d}/{y}"

def v_phone(cc):
    r = R.randint
    if cc == "US":
        return R.choice([f"({r(201,989)}) {r(200,999)}-{r(1000,9999)}", f"+1 {r(201,989)}-{r(200,999)}-{r(1000,9999)}", f"{r(201,989)}.{r(200,999)}.{r(1000,9999)}"])
    if cc == "DE":
        return R.choice([f"030 {r(1000000,9999999)}", f"+49 89 {r(100000,999999)}", f"0171/{r(1000000,9999999)}"])
    if cc == "FR":
        return R.choice([f"0{r(1,7)} {r(10,99)} {r(10,99)} {r(10,99)} {r(10,99)}", f"+33 6 {r(10,99)} {r(10,99)} {r(10,99)} {r(10,99)}"])
    if cc == "ES":
        return R.choice([f"+34 6{r(10,99)} {r(100,999)} {r(100,999)}", f"91 {r(100,999)} {r(10,99)} {r(10,99)}"])
    if cc == "IT":
        return R.choice([f"+39 3{r(10,99)} {r(1000000,9999999)}", f"06 {r(10000000,99999999)}"])
    if cc == "PT":
        return R.choice([f"+351 9{r(10,99)} {r(100,999)} {r(100,999)}", f"21 {r(100,999)} {r(1000,9999)}"])
    return R.choice([f"06-{r(10000000,99999999)}", f"+31 20 {r(100,999)} {r(1000,9999)}", f"020-{r(1000000,9999999)}"])

def v_postal(cc):
    r = R.randint
    return {"US": lambda: R.choice([f"{r(10000,99999)}", f"{r(10000,99999)}-{r(1000,9999)}"]),
            "DE": lambda: f"{r(1067,99998):05d}", "FR": lambda: f"{r(1000,95999):05d}", "ES": lambda: f"{r(1001,52999):05d}",
            "IT": lambda: f"{r(10,98199):05d}", "PT": lambda: f"{r(1000,9999)}-{r(1,999):03d}",
            "NL": lambda: f"{r(1000,9999)} {R.choice('ABCDEGHJKLMNPRST')}{R.choice('ABCDEGHJKLMNPRST')}"}[cc]()

def v_number(cc, lo, hi, decimals=2):
    x = R.uniform(lo, hi)
    s = f"{x:,.{decimals}f}"
    if cc in ("DE", "ES", "IT", "PT", "NL"):
        s = s.replace(",", "X").replace(".", ",").replace("X", ".")
    elif cc == "FR":
        s = s.replace(",", " ").replace(".", ",")
    return s

def value(field, cc, row, st):
    r = R.randint
    fn, ln = st["first"], st["last"]
    if field == "id":
        return st["id_fmt"].format(n=1000 + row * 7)
    if field == "order_id":
        return st["order_fmt"].format(n=50000 + row * 3)
    if field == "first_name":
        return fn
    if field == "last_name":
        return ln
    if field == "name":
        return st["name_fmt"].format(f=fn, l=ln)
    if field == "email":
        if R.random() < 0.04:
            return R.choice(["n/a", f"{fold(fn)}@", f"{fold(fn)}.{fold(ln)}(at)example.com"])
        return f"{fold(fn)}.{fold(ln)}{r(1,99) if R.random()<0.3 else ''}@{R.choice(MAIL_DOMAINS)}"
    if field == "phone":
        return v_phone(cc)
    if field == "company":
        return f"{R.choice(COMPANY_WORDS)} {R.choice(['', 'Trading ', 'Consulting ', 'Logistik ', 'Services '])}{R.choice(LEGAL[cc])}".replace("  ", " ")
    if field == "street":
        return R.choice(STREETS[cc]).format(n=r(1, 180))
    if field == "city":
        return R.choice(CITIES[cc])
    if field == "postal_code":
        return v_postal(cc)
    if field == "country":
        return st["country_vals"][row % len(st["country_vals"])] if R.random() < 0.7 else R.choice(COUNTRY_NAMES[cc])
    if field == "date_of_birth":
        return v_date(cc, r(1942, 2004), r(1, 12), r(1, 28), st["date_style"])
    if field == "order_date":
        return v_date(cc, r(2023, 2025), r(1, 12), r(1, 28), st["date_style"])
    if field == "quantity":
        return str(r(1, 40))
    if field == "unit_price":
        return v_number(cc, 1, 250)
    if field == "amount":
        return st["amount_fmt"].format(v=v_number(cc, 10, 9000))
    if field == "currency":
        return R.choice(CURRENCIES[cc])
    raise KeyError(field)

def extra_value(kind, cc, lang, row):
    r = R.randint
    if kind == "note":
        return R.choice(NOTES.get(lang, NOTES["en"]))
    if kind == "user":
        return R.choice(["admin", "j.doe", "sync-bot", "mmueller", "import"])
    if kind == "phone":
        return v_phone(cc) if R.random() < 0.6 else ""
    if kind == "datetime":
        return f"{r(2024,2025)}-{r(1,12):02d}-{r(1,28):02d} {r(0,23):02d}:{r(0,59):02d}:{r(0,59):02d}"
    if kind == "tag":
        return R.choice(["A", "B", "C", "newsletter", "lead", "partner"])
    if kind == "int":
        return str(r(0, 100))
    if kind == "source":
        return R.choice(["web", "fair", "referral", "import", "phone"])
    if kind == "region":
        return R.choice(REGIONS[cc])
    raise KeyError(kind)

# ---------------------------------------------------------------- schemas
# schema -> its fields, each (field name, the kind of column it takes: a key of H).
SCHEMAS = {
    "contacts": [("id", "id"), ("first_name", "first_name"), ("last_name", "last_name"), ("email", "email"), ("phone", "phone"),
                 ("company", "company"), ("street", "street"), ("city", "city"), ("postal_code", "postal_code"), ("country", "country"),
                 ("date_of_birth", "date_of_birth")],
    "people": [("name", "name"), ("email", "email"), ("phone", "phone"), ("city", "city"), ("country", "country"), ("birth_date", "date_of_birth")],
    "orders": [("order_id", "order_id"), ("order_date", "order_date"), ("customer_email", "email"), ("quantity", "quantity"),
               ("unit_price", "unit_price"), ("amount", "amount"), ("currency", "currency"), ("ship_country", "country")],
    "customers": [("customer_no", "id"), ("full_name", "name"), ("email", "email"), ("phone", "phone"), ("company", "company"),
                  ("street", "street"), ("zip", "postal_code"), ("city", "city"), ("country", "country")],
}

def header_for(field, lang, split, used):
    pool = H[field][lang]
    pool = pool[0::2] if split == "a" else pool[1::2]
    opts = [h for h in pool if h not in used]
    return R.choice(opts or pool)

def make_file(idx, split, schema, lang, style):
    """style: 'header' (headers in lang), 'vendor', 'mixed' (some vendor), 'generic' (Column N), 'none' (no header)."""
    cc = COUNTRY_OF[lang if lang != "vendor" else R.choice(LANGS)]
    fields = SCHEMAS[schema][:]
    # a file has most of the schema's fields, not always all
    keep = [f for f in fields if R.random() < 0.8]
    if len(keep) < 3:
        keep = fields[:4]
    extras = R.sample(EXTRAS[lang if style != "vendor" else "vendor"], k=R.randint(0, 3))
    cols = [("field", f) for f, _ in keep] + [("extra", e) for e in extras]
    kind_of = dict(keep)
    R.shuffle(cols)
    st = {
        "first": "", "last": "",
        "id_fmt": R.choice(["{n}", "K-{n}", "C{n:06d}", "{n}"]),
        "order_fmt": R.choice(["SO-{n}", "{n}", "INV-2024-{n}", "A{n}"]),
        "name_fmt": R.choice(["{f} {l}", "{f} {l}", "{l}, {f}"]),
        "date_style": R.choice(["local", "local", "iso"]),
        "amount_fmt": R.choice(["{v}", "{v}", "{v} €" if cc != "US" else "${v}"]),
        "country_vals": R.sample(COUNTRY_NAMES[cc], k=R.randint(1, 3)),
    }
    used = set()
    header = []
    for kind, x in cols:
        if kind == "field":
            hl = lang
            if style == "vendor" or style == "mixed" and R.random() < 0.5:
                hl = "vendor"
            h = header_for(kind_of[x], hl, split, used)
        else:
            h = x[0]
        used.add(h)
        header.append(h)
    if style == "generic":
        fmt = R.choice(["Column {i}", "Col{i}", "Field_{i}", "Unnamed: {i}", "Spalte {i}", "Colonne {i}", "F{i}"])
        header = [fmt.format(i=i + 1) for i in range(len(cols))]
    rows = []
    for row in range(40):
        cn = cc
        st["first"], st["last"] = R.choice(FIRST[cn]), R.choice(LAST[cn])
        rec = []
        for kind, x in cols:
            if kind == "field":
                v = value(kind_of[x], cc, row, st)
                if R.random() < 0.05 and kind_of[x] not in ("id", "order_id"):
                    v = ""
            else:
                v = extra_value(x[1], cc, lang, row)
            rec.append(v)
        rows.append(rec)
    labels = [x if kind == "field" else "none" for kind, x in cols]

    name = f"{idx:02d}-{schema}-{lang}-{style}.csv"
    delim = ";" if cc in ("DE", "FR", "ES", "IT", "PT", "NL") and R.random() < 0.7 else ","
    with open(name, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=delim, lineterminator="\n")
        if style != "none":
            w.writerow(header)
        w.writerows(rows)
    return {"file": name, "split": split, "schema": schema, "delimiter": delim, "header": style != "none",
            "labels": labels, "columns": header if style != "none" else [f"column_{i+1}" for i in range(len(cols))]}

# The schemas' types and formats, by field name (string fields without a format are left out).
TYPES = {
    "email": {"format": "email"}, "customer_email": {"format": "email"}, "phone": {"format": "phone"},
    "country": {"format": "country"}, "ship_country": {"format": "country"}, "currency": {"format": "currency"},
    "date_of_birth": {"type": "date"}, "birth_date": {"type": "date"}, "order_date": {"type": "date"},
    "quantity": {"type": "integer"}, "unit_price": {"type": "number"}, "amount": {"type": "number"},
}
# The people schema says no formats: its fields are plain strings, as many schemas are.
PLAIN = {"people": {"email", "phone", "country"}}

def write_schemas():
    import os
    os.makedirs("schemas", exist_ok=True)
    for name, fields in SCHEMAS.items():
        doc = {"fields": []}
        for f, _ in fields:
            fd = {"name": f, "type": "string"}
            if f not in PLAIN.get(name, ()):
                fd.update(TYPES.get(f, {}))
            doc["fields"].append(fd)
        with open(f"schemas/{name}.json", "w", encoding="utf-8") as out:
            json.dump(doc, out, indent=1)
            out.write("\n")

def main():
    write_schemas()
    plan = []
    styles = ["header"] * 9 + ["vendor", "mixed", "generic", "none"]
    for split in ("a", "b"):
        for i in range(33):
            lang = LANGS[i % len(LANGS)]
            style = styles[(i * 5 + (split == "b")) % len(styles)]
            schema = list(SCHEMAS)[(i + (split == "b")) % len(SCHEMAS)]
            plan.append((split, schema, lang, style))
    out = []
    for n, (split, schema, lang, style) in enumerate(plan, 1):
        out.append(make_file(n, split, schema, lang, style))
    with open("labels.json", "w", encoding="utf-8") as f:
        json.dump({"about": "Every column of every file: the field it belongs to in the file's schema (schemas/), or none. split a was tuned on, b held out.",
                   "files": out}, f, ensure_ascii=False, indent=1)

if __name__ == "__main__":
    main()
